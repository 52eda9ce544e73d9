import { describe, expect, it } from 'vitest';
import * as signature from './index.js';

describe('public surface', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(signature).sort()).toEqual(
      [
        'DTYPES',
        'ExecutionError',
        'ExecutionInputError',
        'FHEliumError',
        'MAX_NESTING_DEPTH',
        'TREE_KINDS',
        'TensorSignature',
        'ValueSignature',
        'ValueTreeSignature',
        'canonicalizeMetadata',
        'dtypeItemSize',
        'getExactValueType',
        'indexPathSegment',
        'isDType',
        'isRegisteredExactValue',
        'isTensorLike',
        'isTensorResident',
        'keyPathSegment',
        'mapKeyPathSegment',
        'metadataEquals',
        'metadataFromJSON',
        'metadataToJSON',
        'rebuildExactValue',
        'registerExactValue',
      ].sort(),
    );
    expect(signature.TREE_KINDS).toEqual(['tensor', 'value', 'array', 'record', 'map']);
    expect(Object.isFrozen(signature.TREE_KINDS)).toBe(true);
  });
});
