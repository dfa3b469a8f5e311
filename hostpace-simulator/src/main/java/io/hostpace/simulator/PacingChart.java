package io.hostpace.simulator;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Draws a {@link PacingResult} as a PNG: a panel per policy, time across, and per bin the
 * attempts started (grey, accepted ones; red, refused ones) as a rate per second, on one time
 * scale; each panel has its own rate scale, set by the bins after the first, so that an opening
 * burst (clipped, its rate written) does not flatten the rest. Headless: sets
 * {@code java.awt.headless=true} before touching AWT.
 */
final class PacingChart {

  private static final int WIDTH = 1000;
  private static final int PANEL = 170;
  private static final int LEFT = 60;
  private static final int RIGHT = 20;
  private static final int TOP = 40;
  /** About this many bins across, each 1, 2 or 5 times a power of ten seconds. */
  private static final int BINS = 100;
  private static final Color ACCEPTED = new Color(90, 110, 140);
  private static final Color REFUSED = new Color(210, 40, 40);

  private PacingChart() {}

  static void write(PacingResult result, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int n = result.policies().size();
    int height = TOP + n * PANEL + 30;
    BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, height);

      double span = 1;
      for (PacingResult.Policy p : result.policies()) {
        span = Math.max(span, p.finishSeconds());
      }
      span = niceCeil(span);
      double bin = niceCeil(span / BINS);
      int bins = (int) Math.ceil(span / bin - 1e-9);
      int[][][] counts = new int[n][][];
      double[] scales = new double[n];
      for (int i = 0; i < n; i++) {
        PacingResult.Policy p = result.policies().get(i);
        counts[i] = new int[][] {histogram(p.starts(), bin, bins), histogram(p.refused(), bin, bins)};
        // Each panel its own scale, set by the bins after the first: the opening burst is clipped.
        double maxRate = 0.1;
        for (int b = 1; b < bins; b++) {
          maxRate = Math.max(maxRate, counts[i][0][b] / bin);
        }
        scales[i] = niceCeil(maxRate * 1.1);
      }

      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
      g.drawString(String.format(Locale.ROOT,
          "Attempts started per second (grey accepted, red refused); bins of %s s; green: ideal finish %.1f s",
          trim(bin), result.idealSeconds()), LEFT, 24);

      int plotWidth = WIDTH - LEFT - RIGHT;
      for (int i = 0; i < n; i++) {
        PacingResult.Policy p = result.policies().get(i);
        int y0 = TOP + i * PANEL + 22;
        int plotHeight = PANEL - 50;
        int base = y0 + plotHeight;
        g.setColor(new Color(245, 245, 245));
        g.fillRect(LEFT, y0, plotWidth, plotHeight);
        double barWidth = (double) plotWidth / bins;
        for (int b = 0; b < bins; b++) {
          int all = counts[i][0][b];
          int bad = counts[i][1][b];
          int x = LEFT + (int) Math.round(b * barWidth);
          int w = Math.max(1, (int) Math.round((b + 1) * barWidth) - (x - LEFT));
          double maxRate = scales[i];
          int hAll = (int) Math.round(Math.min(1, all / bin / maxRate) * plotHeight);
          int hBad = (int) Math.round(Math.min(1, bad / bin / maxRate) * plotHeight);
          if (all / bin > maxRate) {
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
            g.drawString(trim(Math.round(all / bin * 10) / 10.0) + "/s", x + 4, y0 + 11);
          }
          g.setColor(ACCEPTED);
          g.fillRect(x, base - hAll, Math.max(1, w - 1), hAll - hBad);
          g.setColor(REFUSED);
          g.fillRect(x, base - hBad, Math.max(1, w - 1), hBad);
        }
        if (result.idealSeconds() > 0 && result.idealSeconds() <= span) {
          int xi = LEFT + (int) Math.round(result.idealSeconds() / span * plotWidth);
          g.setColor(new Color(40, 150, 60));
          g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {5, 4}, 0));
          g.drawLine(xi, y0, xi, base);
          g.setStroke(new BasicStroke(1));
        }
        g.setColor(Color.DARK_GRAY);
        g.drawRect(LEFT, y0, plotWidth, plotHeight);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.setColor(Color.BLACK);
        g.drawString(p.name(), LEFT, y0 - 6);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString(String.format(Locale.ROOT,
            "completed %d, lost %d, refusals %d (%.1f %%), finish %.1f s, goodput %.2f, p50 wait %d ms, p99 %d ms",
            p.completed(), p.lost(), p.refusals(), p.refusalPct(), p.finishSeconds(), p.goodputRatio(),
            p.p50WaitMs(), p.p99WaitMs()), LEFT + 110, y0 - 6);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawString(trim(scales[i]) + "/s", 8, y0 + 20);
        g.drawString("0", 40, base);
        for (int t = 0; t <= 5; t++) {
          int x = LEFT + plotWidth * t / 5;
          g.drawLine(x, base, x, base + 4);
          String label = trim(span * t / 5) + " s";
          g.drawString(label, Math.min(x - 10, WIDTH - RIGHT - 40), base + 16);
        }
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
  }

  private static int[] histogram(double[] times, double bin, int bins) {
    int[] counts = new int[bins];
    for (double t : times) {
      int b = (int) Math.floor(t / bin);
      counts[Math.max(0, Math.min(bins - 1, b))]++;
    }
    return counts;
  }

  /** 1, 2 or 5 times a power of ten, at least {@code value}. */
  private static double niceCeil(double value) {
    double power = Math.pow(10, Math.floor(Math.log10(value)));
    for (double step : new double[] {1, 2, 5, 10}) {
      if (step * power >= value - 1e-9) {
        return step * power;
      }
    }
    return 10 * power;
  }

  private static String trim(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.3g", value);
  }
}
