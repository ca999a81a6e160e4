package dev.replicapool.operator.health;

import dev.replicapool.api.v1alpha1.MemberState;
import java.time.Instant;

/** A member's change of state, with the reason that names the number that tripped it. */
public record Transition(MemberState from, MemberState to, String reason, Instant at) {}
