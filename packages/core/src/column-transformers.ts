/**
 * PostgreSQL bigint comes back from the driver as a string (it may exceed 2^53); our ids, sizes
 * and counters stay far below that, so entities read them as numbers.
 */
export const bigintAsNumber = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
