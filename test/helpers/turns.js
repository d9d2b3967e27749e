/**
 * Counts steps per turn of the event loop: a counter advanced by a setImmediate chain (one per
 * turn, in its check phase). note() records one step in the current turn; stop() ends the chain
 * and returns the counts per turn.
 */
export function stepsPerTurn() {
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const perTurn = new Map();
  return {
    note: () => perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1),
    stop: () => ((ticking = false), [...perTurn.values()]),
  };
}

/** Holds the thread `ms` milliseconds. */
export function spin(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}
