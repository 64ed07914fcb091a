import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Ajv2019, type ValidateFunction } from 'ajv/dist/2019.js';

interface OpenRpcMethod {
  name: string;
  result?: { schema: object };
}

/** The official execution-apis specification, kept in the repository (see its PROVENANCE.md). */
const SPEC_PATH = new URL('../../support/execution-apis/openrpc.json', import.meta.url);

const ajv = new Ajv2019({ strict: false, allErrors: true });
const methods = new Map(
  (JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as { methods: OpenRpcMethod[] }).methods.map((method) => [
    method.name,
    method,
  ]),
);
const validators = new Map<string, ValidateFunction>();

/** Whether the official specification defines `method`. */
export function isSpecified(method: string): boolean {
  return methods.get(method)?.result !== undefined;
}

/** Asserts that `result` validates against the result schema of `method` in the official specification. */
export function expectValidResult(method: string, result: unknown): void {
  const spec = methods.get(method);
  expect(spec?.result, `${method} is not in the execution-apis specification`).to.not.equal(undefined);
  let validate = validators.get(method);
  if (validate === undefined) {
    validate = ajv.compile(spec!.result!.schema);
    validators.set(method, validate);
  }
  expect(validate(result), `${method} result ${JSON.stringify(result)}: ${ajv.errorsText(validate.errors)}`).to.equal(
    true,
  );
}
