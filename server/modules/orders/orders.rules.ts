import type { OrderStatus } from './orders.schemas.js';

/** Forward order of statuses (CONTRACT §5); `cancelled` is final and reachable from any non-final status. */
export const STATUS_RANK: Record<OrderStatus, number> = {
  new: 0,
  accepted: 1,
  preparing: 2,
  ready: 3,
  delivering: 4,
  completed: 5,
  cancelled: 5,
};

export const isFinal = (s: OrderStatus): boolean => s === 'completed' || s === 'cancelled';
export const isActive = (s: OrderStatus): boolean => !isFinal(s);

export type TransitionVerdict = 'noop' | 'allowed' | 'forbidden';

/** The one place that decides a status move. Same status: no-op. Forward (skipping allowed) or to cancelled from a non-final status: allowed. */
export function transition(from: OrderStatus, to: OrderStatus): TransitionVerdict {
  if (from === to) return 'noop';
  if (isFinal(from)) return 'forbidden';
  if (to === 'cancelled') return 'allowed';
  return STATUS_RANK[to] > STATUS_RANK[from] ? 'allowed' : 'forbidden';
}

export const formatNumber = (prefix: string, n: number): string => `${prefix}-${String(n).padStart(3, '0')}`;
