import { missingOptionalPeer } from './echomq.messages';
import { EchoMqError } from './errors';

/**
 * @internal Checks, when an optional entry (`/metrics`, `/health`) is loaded, that the package it
 * builds on is installed, and says which to install when it is not (Nest's loadPackage habit, minus
 * its process exit). Only those entries call it; the main entry never does.
 */
export function requireOptionalPeer(pkg: string, entry: string): void {
  try {
    require.resolve(pkg);
  } catch (err) {
    throw new EchoMqError(missingOptionalPeer(pkg, entry), { code: 'MISCONFIGURED', cause: err });
  }
}
