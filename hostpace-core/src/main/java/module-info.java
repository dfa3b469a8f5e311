/**
 * Hostpace's engine: per-host pacing, refusal handling and retries for HTTP clients. Exported are
 * the API a program calls ({@code io.hostpace}, {@code io.hostpace.timeout}), the extension points
 * an adapter or a store implements ({@code io.hostpace.spi}), and what tests and simulations use
 * ({@code io.hostpace.testing}); the learning rules' implementation ({@code io.hostpace.rules}) is
 * the module's own.
 */
module io.hostpace {
  requires static transitive org.jspecify;
  requires static com.google.errorprone.annotations;

  exports io.hostpace;
  exports io.hostpace.spi;
  exports io.hostpace.timeout;
  exports io.hostpace.testing;
}
