import { createExtensionPoint } from '@filigrane/core';

/** An extension point: plugins add greeters, the greeting plugin reads them. */
export type Greeter = (name: string) => string;
export const GREETERS = createExtensionPoint<Greeter>('example.greeters');
