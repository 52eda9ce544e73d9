import { CIPHERTEXT_KIND } from './Ciphertext.js';
import { CONJUGATION_KEY_KIND } from './ConjugationKey.js';
import type { CkksValueKind } from './CkksValueKind.js';
import { PLAINTEXT_KIND } from './Plaintext.js';
import { PUBLIC_KEY_KIND } from './PublicKey.js';
import { RELINEARIZATION_KEY_KIND } from './RelinearizationKey.js';
import { ROTATION_KEY_KIND } from './RotationKey.js';
import { SECRET_KEY_KIND } from './SecretKey.js';

/** Every CKKS value type by registered type name (what serialization can read). */
export const CKKS_VALUE_KINDS: ReadonlyMap<string, CkksValueKind> = new Map<string, CkksValueKind>(
  [CIPHERTEXT_KIND, PLAINTEXT_KIND, SECRET_KEY_KIND, PUBLIC_KEY_KIND, RELINEARIZATION_KEY_KIND, ROTATION_KEY_KIND, CONJUGATION_KEY_KIND].map(
    (kind) => [kind.typeName, kind as CkksValueKind],
  ),
);

/** The registered type names of the CKKS values, in a fixed order. */
export const CKKS_VALUE_TYPE_NAMES: readonly string[] = Object.freeze([...CKKS_VALUE_KINDS.keys()]);
