/** The JSON objects of the REST API: derived from the field tables in lib/fields/json.ts (webhooks carry the same objects). */
export { creationJson, resourceJson } from '../lib/fields/json.js';
