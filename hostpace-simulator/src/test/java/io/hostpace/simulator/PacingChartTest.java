package io.hostpace.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pacing chart and the CSV of its figures, from a result made by hand: the CSV's lines (not
 * the pixels), and a PNG that decodes to the chart's size.
 */
class PacingChartTest {

  /** Two policies; the longer finishes at 1000 s, so the chart spans 1000 s in 100 bins of 10 s. */
  static PacingResult result() {
    return new PacingResult(900.0, List.of(
        policy("slow", 1000.0, new double[] {0, 1, 2, 15, 15.5, 999}, new double[] {1, 15}),
        policy("fast", 20.0, new double[] {0, 0, 0, 0}, new double[] {})));
  }

  static PacingResult.Policy policy(String name, double finish, double[] starts, double[] refused) {
    return new PacingResult.Policy(name, starts.length - refused.length, 0, refused.length, 0, finish, 0.9, 1, 2,
        0, 0, 0, List.of(), starts, refused);
  }

  @Test
  void theCsvHasALinePerPolicyAndBinWithTheAcceptedAndRefusedAttemptsAndTheirRates() {
    List<String> lines = new PacingBins(result()).csv().lines().toList();

    assertThat(lines).hasSize(1 + 2 * 100);
    assertThat(lines.get(0)).isEqualTo("policy,from_s,to_s,accepted,refused,accepted_per_s,refused_per_s");
    // 0 to 10 s: starts at 0, 1 and 2 s, the one at 1 s refused
    assertThat(lines.get(1)).isEqualTo("slow,0,10,2,1,0.2,0.1");
    // 10 to 20 s: starts at 15 and 15.5 s, the one at 15 s refused
    assertThat(lines.get(2)).isEqualTo("slow,10,20,1,1,0.1,0.1");
    assertThat(lines.get(3)).isEqualTo("slow,20,30,0,0,0,0");
    assertThat(lines.get(100)).isEqualTo("slow,990,1000,1,0,0.1,0");
    // the second policy on the same time scale: four at once, at 0 s
    assertThat(lines.get(101)).isEqualTo("fast,0,10,4,0,0.4,0");
    assertThat(lines.get(200)).isEqualTo("fast,990,1000,0,0,0,0");
  }

  @Test
  void withSeveralProcessesEachLineAlsoHasEachProcesssAcceptedASecond(@TempDir Path dir) throws IOException {
    // two processes over 100 s in bins of 1 s: process 0.0 accepted at 0.5 and 1.5 s, process 0.1 at 1.2 s
    PacingResult result = new PacingResult(90.0, List.of(new PacingResult.Policy("hostpace", 3, 0, 1, 25, 100.0, 0.9,
        1, 2, 0, 0, 0.5, List.of(new PacingResult.Process(0, 0, 0, 2, 2, 0, 0, 0, new double[] {0.5, 1.5}),
            new PacingResult.Process(0, 1, 0, 1, 1, 0, 1, 1, new double[] {1.2})),
        new double[] {0.5, 1.1, 1.2, 1.5}, new double[] {1.1})));

    List<String> lines = new PacingBins(result).csv().lines().toList();

    assertThat(lines).hasSize(1 + 100);
    assertThat(lines.get(0)).isEqualTo(
        "policy,from_s,to_s,accepted,refused,accepted_per_s,refused_per_s,accepted_per_s_0.0,accepted_per_s_0.1");
    assertThat(lines.get(1)).isEqualTo("hostpace,0,1,1,0,1,0,1,0");
    assertThat(lines.get(2)).isEqualTo("hostpace,1,2,2,1,2,1,1,1");
    assertThat(lines.get(3)).isEqualTo("hostpace,2,3,0,0,0,0,0,0");
    assertThat(result.policies().get(0).processes().get(0).acceptedBetween(1, 2)).isEqualTo(1);
    Path png = dir.resolve("processes.png");
    result.chart(png);
    assertThat(ImageIO.read(png.toFile()).getHeight()).isEqualTo(PacingChart.HEADER + PacingChart.PANEL);
  }

  @Test
  void theTimeScaleEndsWithTheBinThatHoldsTheLongestFinish() {
    PacingBins bins = new PacingBins(new PacingResult(299.1, List.of(
        policy("seed", 476.3, new double[] {0, 476}, new double[] {}))));

    assertThat(bins.width).isEqualTo(5);
    assertThat(bins.count).isEqualTo(96);
    assertThat(bins.span).isEqualTo(480);
  }

  @Test
  void eachPanelsScaleIsSetByTheBinsAfterTheFirst() {
    PacingBins bins = new PacingBins(result());

    // slow: at most 0.2 a second after the first bin, a tenth over it is 0.22, so 0 to 0.5
    assertThat(bins.rows.get(0).scale()).isEqualTo(0.5);
    // fast: nothing after its burst at 0 s, the least scale (0.1, and a tenth over it)
    assertThat(bins.rows.get(1).scale()).isEqualTo(0.2);
  }

  @Test
  void thePngIsWrittenAndDecodesToAPanelPerPolicyAndTheCsvBesideItHoldsTheFigures(@TempDir Path dir) throws IOException {
    Path png = dir.resolve("chart.png");

    result().chart(png);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image).isNotNull();
    assertThat(image.getWidth()).isEqualTo(PacingChart.WIDTH);
    assertThat(image.getHeight()).isEqualTo(PacingChart.HEADER + 2 * PacingChart.PANEL);
    assertThat(PacingResult.csvBeside(png)).isEqualTo(dir.resolve("chart.csv"));
    assertThat(Files.readString(dir.resolve("chart.csv"), StandardCharsets.UTF_8)).isEqualTo(new PacingBins(result()).csv());
  }

  @Test
  void theCsvIsNamedAfterThePng() {
    assertThat(PacingChart.csvBeside(Path.of("out", "qlever.png"))).isEqualTo(Path.of("out", "qlever.csv"));
    assertThat(PacingChart.csvBeside(Path.of("qlever.PNG"))).isEqualTo(Path.of("qlever.csv"));
    assertThat(PacingChart.csvBeside(Path.of("qlever"))).isEqualTo(Path.of("qlever.csv"));
  }
}
