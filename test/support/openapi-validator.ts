import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** Validates values against the component schemas of an OpenAPI document; returns the errors (none = valid). */
export function schemaValidator(document: { components: unknown }): (schemaName: string, value: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'doc', components: document.components });
  return (schemaName, value) => {
    const check = ajv.getSchema(`doc#/components/schemas/${schemaName}`)!;
    return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}
