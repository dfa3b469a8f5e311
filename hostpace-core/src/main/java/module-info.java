/**
 * Hostpace's engine: per-host pacing, refusal handling and retries for HTTP clients. Exported are
 * the API a program calls ({@code io.hostpace}, {@code io.hostpace.timeout}) and the extension
 * points an adapter or a store implements ({@code io.hostpace.spi}). What the project's own
 * modules share ({@code io.hostpace.internal}: header parsing, redaction, the answer deadline, the
 * probe schedule) is exported to them alone, and the learning rules' implementation
 * ({@code io.hostpace.rules}) is the module's own. The servers and scripted exchanges that tests
 * and simulations use ship apart, in {@code hostpace-testing}.
 */
@SuppressWarnings("module") // the modules named below are built after this one
module io.hostpace {
  requires static transitive org.jspecify;
  requires static com.google.errorprone.annotations;

  exports io.hostpace;
  exports io.hostpace.spi;
  exports io.hostpace.timeout;
  exports io.hostpace.internal to
      io.hostpace.cli,
      io.hostpace.httpclient5,
      io.hostpace.jdk,
      io.hostpace.kafka,
      io.hostpace.okhttp,
      io.hostpace.redis,
      io.hostpace.simulator,
      io.hostpace.spring,
      io.hostpace.spring.boot,
      io.hostpace.testkit;
}
