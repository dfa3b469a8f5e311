package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The tables {@code hostpace simulate} prints by default: aligned columns, units in the headings. */
class ResultTableTest {

  @Test
  void aPacingResultIsARowPerPolicyAlignedWithItsFiguresFormatted() {
    PacingResult result = new PacingResult(299.1, List.of(
        new PacingResult.Policy("seed", 300, 0, 79, 20.8, 476.3, 0.63, 237_858, 470_897, 45, 13.3, 0, List.of(),
            new double[0], new double[0]),
        new PacingResult.Policy("unpaced", 51, 249, 1734, 97.1, 53.0, 0.16, 26_450, 52_950, 1387, 97.1, 0, List.of(),
            new double[0], new double[0])));

    assertThat(result.toTable()).isEqualTo("""
        ideal finish 299.1 s: the soonest the servers could have accepted every request

        policy   completed  lost  refusals  refused %  after 10 s %  finish s  goodput  wait p50 ms  wait p99 ms
        seed           300     0        79       20.8          13.3     476.3     0.63      237,858      470,897
        unpaced         51   249     1,734       97.1          97.1      53.0     0.16       26,450       52,950

        refused %: of the attempts; after 10 s %: refusals of attempts started after the first 10 s, of those attempts;
        goodput: the ideal finish of the requests completed over the finish, times the share completed; wait: from a request's arrival to its last attempt's start
        """);
  }

  @Test
  void aFixedWindowServerAddsTheRefusalsAfterTheFirstWindowAndWhatTheyAre() {
    PacingResult result = new PacingResult(540.1, List.of(
        new PacingResult.Policy("hostpace", 600, 0, 9, 1.5, 541.2, 1.0, 10, 20, 5, 0.9, 0.4, 1.1, null, null,
            List.of(), new double[0], new double[0]),
        new PacingResult.Policy("unpaced", 40, 560, 2882, 97.7, 40.2, 0.01, 26_450, 52_950, 2400, 97.7, 92.8, 1.0,
            null, null, List.of(), new double[0], new double[0])));

    assertThat(result.toTable()).isEqualTo("""
        ideal finish 540.1 s: the soonest the servers could have accepted every request

        policy    completed  lost  refusals  refused %  after 10 s %  after 1st window %  finish s  goodput\
          wait p50 ms  wait p99 ms
        hostpace        600     0         9        1.5           0.9                 0.4     541.2     1.00\
                   10           20
        unpaced          40   560     2,882       97.7          97.7                92.8      40.2     0.01\
               26,450       52,950

        refused %: of the attempts; after 10 s %: refusals of attempts started after the first 10 s, of those attempts;
        after 1st window %: at a fixed-window server, refusals of attempts that arrived after the window of its first refusal, of those attempts;
        goodput: the ideal finish of the requests completed over the finish, times the share completed; wait: from a request's arrival to its last attempt's start
        """);
  }

  @Test
  void severalProcessesAddTheAcceptedRateTheirSharesAndATableOfProcesses() {
    List<PacingResult.Process> two = List.of(
        new PacingResult.Process(0, 0, 0, 100, 100, 0, 7, 5),
        new PacingResult.Process(0, 1, 30, 100, 100, 0, 2, 2));
    PacingResult result = new PacingResult(100.0, List.of(
        new PacingResult.Policy("hostpace", 200, 0, 9, 4.3, 104.0, 0.96, 10, 20, 2, 1.0, 1.923, 0.9, 0.96, two,
            new double[0], new double[0]),
        // shares not defined (a process done before the other joined), and no rate to read them against
        new PacingResult.Policy("unpaced", 200, 0, 9, 4.3, 104.0, 0.96, 10, 20, 2, 1.0, 1.923, null, null, two,
            new double[0], new double[0])));

    assertThat(result.toTable()).contains("""
        policy    completed  lost  refusals  refused %  after 10 s %  finish s  goodput  wait p50 ms  wait p99 ms\
          accepted a second  shares (Jain)  together, of rate
        hostpace        200     0         9        4.3           1.0     104.0     0.96           10           20\
                      1.923           0.90               0.96
        unpaced         200     0         9        4.3           1.0     104.0     0.96           10           20\
                      1.923
        """).contains("""
        shares (Jain): of the processes' accepted attempts while all had joined and none had finished, 1 equal, 1/n one alone;
        together, of rate: all of them accepted a second then, of the server's rate
        """).endsWith("""

        policy    client.process  joins at s  requests  completed  lost  refusals  in its first 10 s
        hostpace  0.0                    0.0       100        100     0         7                  5
        hostpace  0.1                   30.0       100        100     0         2                  2
        unpaced   0.0                    0.0       100        100     0         7                  5
        unpaced   0.1                   30.0       100        100     0         2                  2
        """);
  }

  @Test
  void aTimeoutResultIsARowPerPolicyWithTheStagesItLost() {
    TimeoutResult result = new TimeoutResult(List.of(
        new TimeoutResult.Policy("seed", List.of("datatypes", "triples"), 1_719_100, List.of(
            new TimeoutResult.Stage("datatypes", "504", 3, List.of(300_000L, 300_000L, 10_000L), 0, 610_000, 0),
            new TimeoutResult.Stage("triples", "timeout", 1, List.of(10_000L), 610_000, 620_000, 2))),
        new TimeoutResult.Policy("hostpace", List.of(), 2_000, List.of())));

    assertThat(result.toTable()).isEqualTo("""
        policy    stages lost  total s  probes  lost stages
        seed                2  1,719.1       2  datatypes, triples
        hostpace            0      2.0       0  -
        """);
  }
}
