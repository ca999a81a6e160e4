package dev.replicapool.dataplane.routing;

/**
 * A consistent-hash lookup structure: a key lands on a slot, and the slots after it (wrapping
 * round) are where the key goes when the member of its slot cannot take it. Immutable.
 */
interface HashTable {
  /** Number of slots. */
  int slots();

  /** The slot a key lands on. */
  int slot(long key);

  /** The index of the member that owns a slot, in the order the table was built with. */
  int member(int slot);
}
