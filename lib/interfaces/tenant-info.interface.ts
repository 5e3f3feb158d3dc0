/** A tenant and its pending jobs, as {@link LanesService.topTenants} reads them. */
export interface TenantPending {
  tenant: string;
  /** Jobs waiting in its lanes. */
  pending: number;
}

/** A tenant's state, as {@link LanesService.tenant} reads it. */
export interface TenantInfo {
  /** The tenant's name. */
  tenant: string;
  /** How many of its lanes hold jobs or settings. */
  lanes: number;
  /** Jobs waiting in its lanes. */
  pending: number;
  /** Its jobs currently leased, summed over its lanes. */
  active: number;
  /** Turns of its own ring a weighted claim takes when it lands on the tenant (1 when unset). */
  weight: number;
  /** Ceiling on its active jobs summed over its lanes, null when none. */
  limit: number | null;
  /** Whether the tenant is paused (every lane of it out of service). */
  paused: boolean;
  /** When a timed pause ends, ms since epoch by the server clock; null when not paused or paused until resumed. */
  pausedUntil: number | null;
  /** The reason given to `pauseTenant`, while the tenant is paused; null when none. */
  pauseReason: string | null;
  /** Whether the tenant's entry is on the queue's ring, i.e. one of its lanes is serviceable right now. */
  inRing: boolean;
}
