export { isJsonSafe, type JsonObject, type JsonPrimitive, type JsonValue, valueAt } from './json';
