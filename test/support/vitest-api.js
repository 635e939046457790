// What the upstream contribution's test (patches/upstream/) imports from vitest, from jest: the same API.
export { describe, expect, it } from '@jest/globals';
