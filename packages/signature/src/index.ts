export { FHEliumError, ExecutionError, ExecutionInputError } from './errors.js';
