package io.hostpace.simulator;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYPointerAnnotation;
import org.jfree.chart.block.RectangleConstraint;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StackedXYBarRenderer;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.HorizontalAlignment;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.DefaultTableXYDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws a {@link PacingResult} as a PNG with JFreeChart, and writes the figures it draws as CSV
 * beside it ({@code qlever.png}, {@code qlever.csv}): a panel per policy, time across on one scale
 * for all, and per bin the attempts started a second, accepted (grey) and refused (red) stacked.
 * Each panel has its own rate scale, said in its title, set by the bins after the first
 * ({@link PacingBins}): an opening burst above it is clipped, its rate written beside its bar. A
 * dashed green line is the ideal finish. Where the scenario has several processes, a line per
 * process over the bars is its accepted attempts a second, each bin's at its middle: how the
 * processes shared the server over time, whether they converge to equal shares or one starves.
 * Headless: sets {@code java.awt.headless=true} first.
 */
final class PacingChart {

  static final int WIDTH = 1000;
  static final int HEADER = 44;
  static final int PANEL = 240;

  private static final Color ACCEPTED = new Color(110, 125, 150);
  private static final Color REFUSED = new Color(210, 40, 40);
  private static final Color IDEAL = new Color(30, 140, 60);
  private static final Color GRID = new Color(215, 215, 215);
  /** The processes' lines, in turn (Okabe and Ito's colours, told apart by most readers). */
  private static final Color[] PROCESSES = {
      new Color(0, 114, 178), new Color(230, 159, 0), new Color(0, 158, 115), new Color(204, 121, 167),
      new Color(86, 180, 233), new Color(213, 94, 0), new Color(240, 228, 66), new Color(0, 0, 0)};

  private PacingChart() {}

  /** The image's height for {@code policies} panels. */
  static int height(int policies) {
    return HEADER + policies * PANEL;
  }

  /** The CSV written beside {@code png}: its name with {@code .csv} for {@code .png}. */
  static Path csvBeside(Path png) {
    String name = png.getFileName().toString();
    String stem = name.toLowerCase(Locale.ROOT).endsWith(".png") ? name.substring(0, name.length() - 4) : name;
    return png.resolveSibling(stem + ".csv");
  }

  static void write(PacingResult result, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    PacingBins bins = new PacingBins(result);
    int n = bins.rows.size();
    BufferedImage image = new BufferedImage(WIDTH, height(n), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, height(n));
      TextTitle title = new TextTitle(String.format(Locale.ROOT,
          n > 0 && bins.rows.get(0).byProcess().length > 0
              ? "Starts a second in bins of %s s: accepted (grey), refused (red), each process's accepted (lines)"
              : "Attempts started a second, in bins of %s s: accepted (grey) and refused (red); each panel its own scale",
          PacingBins.plain(bins.width)),
          new Font(Font.SANS_SERIF, Font.BOLD, 16));
      title.setPadding(new RectangleInsets(14, 10, 4, 10));
      title.arrange(g, RectangleConstraint.NONE.toFixedWidth(WIDTH));
      title.draw(g, new Rectangle2D.Double(0, 0, WIDTH, HEADER));
      for (int i = 0; i < n; i++) {
        panel(bins, bins.rows.get(i), result.idealSeconds())
            .draw(g, new Rectangle2D.Double(0, HEADER + i * PANEL, WIDTH, PANEL));
      }
    } finally {
      g.dispose();
    }
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    if (!ImageIO.write(image, "png", png.toFile())) {
      throw new IOException("no PNG writer in this JVM");
    }
    Files.writeString(csvBeside(png), bins.csv(), StandardCharsets.UTF_8);
  }

  private static JFreeChart panel(PacingBins bins, PacingBins.Row row, double idealSeconds) {
    PacingResult.Policy p = row.policy();
    XYSeries accepted = new XYSeries("accepted", false, false);
    XYSeries refused = new XYSeries("refused", false, false);
    for (int b = 0; b < bins.count; b++) {
      accepted.add(bins.from(b), row.acceptedRate(b, bins.width));
      refused.add(bins.from(b), row.refusedRate(b, bins.width));
    }
    DefaultTableXYDataset data = new DefaultTableXYDataset();
    data.addSeries(accepted);
    data.addSeries(refused);
    data.setIntervalWidth(bins.width);
    data.setIntervalPositionFactor(0);

    NumberAxis time = new NumberAxis("seconds from the start");
    time.setRange(0, bins.span);
    NumberAxis rate = new NumberAxis("starts a second");
    rate.setRange(0, row.scale());
    StackedXYBarRenderer bars = new StackedXYBarRenderer(0.1);
    bars.setBarPainter(new StandardXYBarPainter());
    bars.setShadowVisible(false);
    bars.setDrawBarOutline(false);
    bars.setSeriesPaint(0, ACCEPTED);
    bars.setSeriesPaint(1, REFUSED);

    XYPlot plot = new XYPlot(data, time, rate, bars);
    if (row.byProcess().length > 0) {
      XYSeriesCollection lines = new XYSeriesCollection();
      XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
      for (int i = 0; i < row.byProcess().length; i++) {
        PacingResult.Process process = p.processes().get(i);
        XYSeries series = new XYSeries("process " + process.client() + "." + process.process(), false, false);
        for (int b = 0; b < bins.count; b++) {
          series.add(bins.from(b) + bins.width / 2, row.processRate(i, b, bins.width));
        }
        lines.addSeries(series);
        renderer.setSeriesPaint(i, PROCESSES[i % PROCESSES.length]);
        renderer.setSeriesStroke(i, new BasicStroke(1.5f));
      }
      plot.setDataset(1, lines);
      plot.setRenderer(1, renderer);
    }
    plot.setBackgroundPaint(Color.WHITE);
    plot.setOutlinePaint(Color.GRAY);
    plot.setDomainGridlinePaint(GRID);
    plot.setRangeGridlinePaint(GRID);
    plot.setDomainGridlineStroke(new BasicStroke(1));
    plot.setRangeGridlineStroke(new BasicStroke(1));
    plot.setAxisOffset(RectangleInsets.ZERO_INSETS);

    if (idealSeconds > 0 && idealSeconds <= bins.span) {
      ValueMarker ideal = new ValueMarker(idealSeconds, IDEAL,
          new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
      ideal.setLabel("ideal finish " + PacingBins.plain(idealSeconds) + " s");
      ideal.setLabelPaint(IDEAL);
      ideal.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
      ideal.setLabelBackgroundColor(new Color(255, 255, 255, 210));
      ideal.setLabelAnchor(RectangleAnchor.TOP_LEFT);
      ideal.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
      plot.addDomainMarker(ideal);
    }
    double opening = (row.accepted()[0] + row.refused()[0]) / bins.width;
    if (opening > row.scale()) {
      // The opening burst is above the panel's scale: its bar is clipped, and its rate is written
      // beside it, to its right, with an arrow to the bar's top.
      XYPointerAnnotation burst = new XYPointerAnnotation(
          "first " + PacingBins.plain(bins.width) + " s: " + PacingBins.plain(opening) + " a second (above the scale, bar cut)",
          bins.width, row.scale() * 0.92, 0);
      burst.setTextAnchor(TextAnchor.CENTER_LEFT);
      burst.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
      burst.setArrowLength(16);
      burst.setLabelOffset(8);
      burst.setBaseRadius(4);
      burst.setTipRadius(1);
      plot.addAnnotation(burst);
    }

    JFreeChart chart = new JFreeChart(null, new Font(Font.SANS_SERIF, Font.BOLD, 14), plot, false);
    chart.setBackgroundPaint(Color.WHITE);
    chart.setPadding(new RectangleInsets(4, 8, 6, 16));
    TextTitle name = new TextTitle(p.name() + "   scale 0 to " + PacingBins.plain(row.scale()) + " a second",
        new Font(Font.SANS_SERIF, Font.BOLD, 14));
    name.setHorizontalAlignment(HorizontalAlignment.LEFT);
    chart.setTitle(name);
    TextTitle figures = new TextTitle(String.format(Locale.ROOT,
        "completed %,d, lost %,d, refusals %,d (%.1f %% of attempts), finish %.1f s, goodput %.2f, wait p50 %.1f s, p99 %.1f s",
        p.completed(), p.lost(), p.refusals(), p.refusalPct(), p.finishSeconds(), p.goodputRatio(),
        p.p50WaitMs() / 1000.0, p.p99WaitMs() / 1000.0), new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    figures.setHorizontalAlignment(HorizontalAlignment.LEFT);
    chart.addSubtitle(figures);
    if (row.byProcess().length > 0) {
      LegendTitle legend = new LegendTitle(plot.getRenderer(1));
      legend.setItemFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
      legend.setHorizontalAlignment(HorizontalAlignment.LEFT);
      chart.addSubtitle(legend);
    }
    return chart;
  }
}
