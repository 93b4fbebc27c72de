export { isJsonSafe, type JsonObject, type JsonPrimitive, type JsonValue } from './json';
