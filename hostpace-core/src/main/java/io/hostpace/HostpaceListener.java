package io.hostpace;

/**
 * Hears every decision of an engine. Called after the decision, outside the engine's lock, on
 * the thread that moved the engine on; it must return quickly. An exception it throws is
 * caught and ignored: a listener cannot break the engine.
 */
@FunctionalInterface
public interface HostpaceListener {

  /** One decision. */
  void onEvent(HostpaceEvent event);
}
