/** Lines of a plain-text table; `align` has one letter per column: `l` pads text on the right, `r` on the left. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], align: string): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, column) =>
        align[column] === 'r' ? text.padStart(widths[column] ?? 0) : text.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
