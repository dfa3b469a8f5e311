package io.hostpace.simulator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The simulator: reads a scenario, replays it in virtual time against each policy it names, and
 * reports what each did; one per kind of workload, {@link #PACING} (the engine's learning rules
 * against server models, {@code scenarios/pacing/README.md}) and {@link #TIMEOUTS} (timeout
 * policies against a slow endpoint, {@code scenarios/timeouts/README.md}).
 *
 * <pre>{@code
 * String json = Simulator.PACING.run(Path.of("scenarios/pacing/qlever-like.json"));  // one JSON object
 * PacingResult result = Simulator.PACING.simulate(Path.of("..."));                   // the same, as a value
 * result.chart(Path.of("docs/qlever-like.png"));                                     // starts and refusals
 * TimeoutResult timeouts = Simulator.TIMEOUTS.simulate(Path.of("scenarios/timeouts/seed-003.json"));
 * }</pre>
 *
 * @param <R> the result of a replay of its kind of scenario
 */
public final class Simulator<R extends SimulationResult> {

  /** Pacing scenarios: clients, servers that limit them, and pacing policies. */
  public static final Simulator<PacingResult> PACING = new Simulator<>("pacing", new PacingWorkload());

  /** Timeout scenarios: a pipeline's stages, one endpoint, and timeout policies. */
  public static final Simulator<TimeoutResult> TIMEOUTS = new Simulator<>("timeouts", new TimeoutWorkload());

  /** Every kind, by its name. */
  static final Registry<Simulator<?>> ALL = Registry.of(List.of(PACING, TIMEOUTS), Simulator::kind);

  /**
   * The clock's origin of every replay: ten minutes before the nanosecond count wraps, so that
   * every replay of more than ten minutes checks that the engine and the policies compare times
   * by difference.
   */
  static final long ORIGIN = Long.MAX_VALUE - Duration.ofMinutes(10).toNanos();

  /** The wall clock's time at the start of every replay: what a {@code Retry-After} date is read against. */
  static final Instant WALL_ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

  private final String kind;
  private final Workload<?, R> workload;

  private Simulator(String kind, Workload<?, R> workload) {
    this.kind = kind;
    this.workload = workload;
  }

  /** The simulator of {@code kind}: {@code pacing} or {@code timeouts}. */
  static Optional<Simulator<?>> named(String kind) {
    return ALL.find(kind);
  }

  /** Its kind of scenario, as the command line names it: {@code pacing}, {@code timeouts}. */
  public String kind() {
    return kind;
  }

  /**
   * Replays the scenario in {@code scenarioFile} and returns the result as one JSON object.
   *
   * @throws ScenarioException when the scenario does not parse or makes no sense; its message
   *     names the field
   * @throws IOException when the file cannot be read
   */
  public String run(Path scenarioFile) throws IOException {
    return simulate(scenarioFile).toJson();
  }

  /** {@link #run(Path)}, as a value. */
  public R simulate(Path scenarioFile) throws IOException {
    return simulate(Files.readString(scenarioFile, StandardCharsets.UTF_8));
  }

  /**
   * Replays the scenario given as JSON text.
   *
   * @throws ScenarioException when it does not parse or makes no sense
   */
  public R simulate(String scenarioJson) {
    return workload.simulate(scenarioJson, ORIGIN);
  }

  @Override
  public String toString() {
    return kind;
  }
}
