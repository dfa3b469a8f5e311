package io.hostpace;

/** A group and the limits a context gives it: the identity of a {@link GroupGate}. */
record GateKey(String group, Limits limits) {}
