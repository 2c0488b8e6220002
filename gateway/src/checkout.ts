import { resolve } from 'node:path';

/** The checkout the gateway runs from (gateway/dist/src -> the repository root): the tool's build script, the packages to pack. */
export const CHECKOUT = resolve(__dirname, '..', '..', '..');
