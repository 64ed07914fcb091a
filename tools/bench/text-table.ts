/** Lines of a plain-text table: the first `textColumns` columns left-aligned, the figures after them right-aligned. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  textColumns: number,
): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, column) =>
        column < textColumns ? text.padEnd(widths[column] ?? 0) : text.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
