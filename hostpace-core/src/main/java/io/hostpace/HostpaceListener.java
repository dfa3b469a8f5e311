package io.hostpace;

/**
 * Hears every decision of an engine. Called after the decision, outside the engine's lock, on
 * the thread that moved the engine on; it must return quickly. Whatever it throws, an
 * {@code Error} too, is caught, and logged at {@code WARNING} on the {@code System.Logger} {@code io.hostpace.Hostpace}
 * (at most once a minute per listener and kind of exception): a listener cannot break the engine,
 * nor keep the other listeners from hearing the event. The same events are logged at
 * {@code DEBUG} there, one line each, when that level is on.
 */
@FunctionalInterface
public interface HostpaceListener {

  /** One decision. */
  void onEvent(HostpaceEvent event);
}
