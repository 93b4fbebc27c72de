export { at } from './at';
