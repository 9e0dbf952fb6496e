import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws the Spinel/Redis throughput ratios of every table in docs/BENCHMARKS.md as a bar chart
 * (one group per table, one bar per test, a line at 1.0x). Run with: java bench/Chart.java IN.md OUT.png
 */
public class Chart {
    record Bar(String group, String test, double ratio) {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        List<Bar> bars = new ArrayList<>();
        String group = "";
        boolean inResults = false; // only the tables compare.sh wrote, not tables in the prose
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            if (line.startsWith("<!-- compare: ")) inResults = true;
            if (line.startsWith("<!-- /compare: ")) inResults = false;
            if (!inResults) continue;
            if (line.startsWith("### ")) group = line.substring(4).trim();
            if (line.startsWith("| ") && line.contains("x |") && !line.startsWith("| test")) {
                String[] f = line.split("\\|");
                String ratio = f[4].trim();
                if (!ratio.endsWith("x")) continue;
                bars.add(new Bar(group, f[1].trim(), Double.parseDouble(ratio.substring(0, ratio.length() - 1))));
            }
        }
        int barW = 18, gap = 6, left = 60, top = 30, h = 360, labelH = 170;
        long groups = bars.stream().map(Bar::group).distinct().count();
        int width = Math.max(600, left + 20 + bars.size() * (barW + gap) + (int) groups * gap * 2 + 40);
        BufferedImage img = new BufferedImage(width, top + h + labelH, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        double max = Math.max(2.0, bars.stream().mapToDouble(Bar::ratio).max().orElse(1) * 1.1);
        g.setColor(Color.DARK_GRAY);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString("Spinel throughput / Redis throughput (same machine, medians)", left, 20);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (double t = 0; t <= max; t += 0.5) {
            int y = top + h - (int) (t / max * h);
            g.setColor(new Color(230, 230, 230));
            g.drawLine(left, y, width - 20, y);
            g.setColor(Color.DARK_GRAY);
            g.drawString(String.format("%.1fx", t), 10, y + 4);
        }
        int x = left + 10;
        String last = null;
        int colour = 0;
        Color[] palette = {new Color(66, 133, 244), new Color(219, 68, 55), new Color(244, 180, 0),
            new Color(15, 157, 88), new Color(171, 71, 188), new Color(0, 172, 193)};
        for (Bar b : bars) {
            if (last != null && !last.equals(b.group)) {
                x += gap * 2;
                colour++;
            }
            last = b.group;
            int bh = (int) (b.ratio / max * h);
            g.setColor(palette[colour % palette.length]);
            g.fillRect(x, top + h - bh, barW, bh);
            g.setColor(Color.DARK_GRAY);
            Graphics2D r = (Graphics2D) g.create();
            r.rotate(Math.toRadians(60), x + 4, top + h + 8);
            r.drawString(b.test.length() > 40 ? b.test.substring(0, 38) + "..." : b.test, x + 4, top + h + 8);
            r.dispose();
            x += barW + gap;
        }
        int y1 = top + h - (int) (1.0 / max * h);
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(2));
        g.drawLine(left, y1, width - 20, y1);
        ImageIO.write(img, "png", new File(args[1]));
    }
}
