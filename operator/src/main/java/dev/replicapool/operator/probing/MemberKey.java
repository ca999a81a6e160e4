package dev.replicapool.operator.probing;

/**
 * Identity of one probed member: its pool ("namespace/name") and its address ("host:port"). The
 * same address in two pools is two members, probed separately with each pool's settings.
 */
public record MemberKey(String pool, String address) {
  public MemberKey {
    if (pool == null || address == null) {
      throw new IllegalArgumentException("pool and address are required");
    }
  }

  @Override
  public String toString() {
    return pool + "/" + address;
  }
}
