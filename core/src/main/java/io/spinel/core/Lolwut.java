package io.spinel.core;

import io.spinel.core.command.CommandHandler;
import io.spinel.core.protocol.Args;

import java.util.concurrent.ThreadLocalRandom;

/**
 * LOLWUT [VERSION v] [arguments]: computer art and the version, as Redis 7.0 draws it (its
 * lolwut.c, lolwut5.c and lolwut6.c). Version 5 is Georg Nees's "Schotter" in Braille dots,
 * version 6 a city skyline in terminal colours, any other (the default, 7) the version line
 * alone. The drawings' random parts use their own random numbers, so only the rows that Redis
 * draws without randomness (Schotter's first two rows of squares) are Redis's bytes; the sizes,
 * the lines and the captions always are. Float arithmetic follows the C code's types so that
 * the squares land on the same pixels.
 */
final class Lolwut {
    private Lolwut() {
    }

    static CommandHandler handler(String name) {
        return name.equals("lolwut") ? Lolwut::lolwut : null;
    }

    /** C's RAND_MAX: what the random parts scale by. */
    private static final int RAND_MAX = Integer.MAX_VALUE;

    private static void lolwut(Client c) {
        Args a = c.args();
        // Redis picks by its own version (7.0.15: the version line alone) or by VERSION n, cast
        // to an unsigned int: 5 draws Schotter, 6 the skyline, any other the line alone
        int version = 7;
        int first = 1; // where the drawing's own arguments start
        if (a.count() >= 3 && a.is(1, "version")) {
            version = (int) c.argLong(2);
            first = 3;
        }
        String art = version == 5 ? schotter(c, first) : version == 6 ? skyline(c, first) : "";
        c.reply().verbatim(art + "Redis ver. " + Engine.REDIS_VERSION + "\n", "txt");
    }

    /** The optional numeric argument at index i, or dflt when absent; clamped to [min, max]. */
    private static long numberArg(Client c, int i, long dflt, long min, long max) {
        long v = i < c.args().count() ? c.argLong(i) : dflt;
        return Math.max(min, Math.min(max, v));
    }

    // ---- version 5: Schotter ------------------------------------------------------------------

    private static String schotter(Client c, int first) {
        int cols = (int) numberArg(c, first, 66, 1, 1000);
        int perRow = (int) numberArg(c, first + 1, 8, 1, 200);
        int perCol = (int) numberArg(c, first + 2, 12, 1, 200);
        Canvas canvas = drawSchotter(cols, perRow, perCol);
        StringBuilder sb = new StringBuilder();
        // each character is a 2x4 block of dots: Braille patterns start at U+2800, one bit a dot
        for (int y = 0; y < canvas.height; y += 4) {
            for (int x = 0; x < canvas.width; x += 2) {
                int dots = canvas.get(x, y) | canvas.get(x, y + 1) << 1 | canvas.get(x, y + 2) << 2
                        | canvas.get(x + 1, y) << 3 | canvas.get(x + 1, y + 1) << 4 | canvas.get(x + 1, y + 2) << 5
                        | canvas.get(x, y + 3) << 6 | canvas.get(x + 1, y + 3) << 7;
                sb.append((char) (0x2800 + dots));
            }
            if (y != canvas.height - 1) sb.append('\n');
        }
        return sb.append("\nGeorg Nees - schotter, plotter on paper, 1968. ").toString();
    }

    static Canvas drawSchotter(int cols, int perRow, int perCol) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int width = cols * 2;
        int padding = width > 4 ? 2 : 0;
        float side = (float) (width - padding * 2) / perRow;
        int height = (int) (side * perCol + padding * 2);
        Canvas canvas = new Canvas(width, height, 0);
        for (int y = 0; y < perCol; y++) {
            for (int x = 0; x < perRow; x++) {
                int sx = (int) (x * side + side / 2 + padding);
                int sy = (int) (y * side + side / 2 + padding);
                float angle = 0;
                // the lower the row, the more its squares turn and drift
                if (y > 1) {
                    float r1 = (float) rand(rnd) / (float) RAND_MAX / perCol * y;
                    float r2 = (float) rand(rnd) / (float) RAND_MAX / perCol * y;
                    float r3 = (float) rand(rnd) / (float) RAND_MAX / perCol * y;
                    if (rand(rnd) % 2 != 0) r1 = -r1;
                    if (rand(rnd) % 2 != 0) r2 = -r2;
                    if (rand(rnd) % 2 != 0) r3 = -r3;
                    angle = r1;
                    sx = (int) (sx + r2 * side / 3);
                    sy = (int) (sy + r3 * side / 3);
                }
                canvas.square(sx, sy, side, angle, 1);
            }
        }
        return canvas;
    }

    // ---- version 6: a skyline -----------------------------------------------------------------

    /** The colours' escape sequences (foreground and background): black, two greys, white. */
    private static final String[] COLOURS = {"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"};

    private static String skyline(Client c, int first) {
        int cols = (int) numberArg(c, first, 80, 1, 1000);
        int rows = (int) numberArg(c, first + 1, 20, 1, 1000);
        Canvas canvas = new Canvas(cols, rows, 3);
        drawSkyline(canvas);
        StringBuilder sb = new StringBuilder();
        for (int y = 0; y < canvas.height; y++) {
            for (int x = 0; x < canvas.width; x++) {
                int colour = canvas.get(x, y);
                sb.append("\033[").append(COLOURS[colour < COLOURS.length ? colour : 0]).append(" \033[0m");
            }
            if (y != canvas.height - 1) sb.append('\n');
        }
        return sb.append("\nDedicated to the 8 bit game developers of past and present.\n"
                + "Original 8 bit image from Plaguemon by hikikomori. ").toString();
    }

    private static void drawSkyline(Canvas canvas) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int h = canvas.height;
        // two rows of windowless buildings behind, the lighter grey furthest back
        for (int colour = 2; colour >= 1; colour--) {
            for (int offset = -10; offset < canvas.width; ) {
                offset += rand(rnd) % 8;
                int width = 10 + rand(rnd) % 9;
                int height = h / 2 + (colour == 2 ? rand(rnd) % h / 2 : rand(rnd) % h / 3);
                building(canvas, rnd, offset, width, height, false, colour);
                offset += colour == 2 ? width / 2 : width + 1;
            }
        }
        // and black ones with lit windows in front
        for (int offset = -10; offset < canvas.width; ) {
            offset += rand(rnd) % 8;
            int width = 5 + rand(rnd) % 14;
            if (width % 4 != 0) width += width % 3;
            int height = h / 3 + rand(rnd) % h / 2;
            building(canvas, rnd, offset, width, height, true, 0);
            offset += width + 5;
        }
    }

    private static void building(Canvas canvas, ThreadLocalRandom rnd, int xoff, int width, int height, boolean windows,
            int colour) {
        int bottom = canvas.height - 1;
        int top = bottom - height + 1;
        for (int y = bottom; y >= top; y--) {
            for (int x = xoff; x < xoff + width; x++) {
                // the roof is two pixels narrower on each side
                if (y == top && (x <= xoff + 1 || x >= xoff + width - 2)) continue;
                int pixel = colour;
                boolean inner = x > xoff + 1 && x < xoff + width - 2 && y > top + 1 && y < bottom - 1;
                if (windows && inner) {
                    int relx = x - (xoff + 1);
                    int rely = y - (top + 1);
                    // windows two pixels wide and one tall (a terminal's pixels are tall)
                    if ((relx / 2) % 2 != 0 && rely % 2 != 0) {
                        do {
                            pixel = 1 + rand(rnd) % 2;
                        } while (pixel == colour);
                        if (relx % 2 != 0) pixel = canvas.get(x - 1, y);
                    }
                }
                canvas.set(x, y, pixel);
            }
        }
    }

    /** A C rand(): 0..RAND_MAX. */
    private static int rand(ThreadLocalRandom rnd) {
        return rnd.nextInt() & RAND_MAX;
    }

    /** A grid of small colours; reads outside it are 0 and writes outside it are dropped. */
    static final class Canvas {
        final int width;
        final int height;
        private final byte[] pixels;

        Canvas(int width, int height, int background) {
            this.width = width;
            this.height = height;
            pixels = new byte[width * height];
            java.util.Arrays.fill(pixels, (byte) background);
        }

        int get(int x, int y) {
            return x < 0 || x >= width || y < 0 || y >= height ? 0 : pixels[x + y * width];
        }

        void set(int x, int y, int colour) {
            if (x >= 0 && x < width && y >= 0 && y < height) pixels[x + y * width] = (byte) colour;
        }

        /** Bresenham's line from (x1, y1) to (x2, y2), both ends included. */
        void line(int x1, int y1, int x2, int y2, int colour) {
            int dx = Math.abs(x2 - x1);
            int dy = Math.abs(y2 - y1);
            int stepX = x1 < x2 ? 1 : -1;
            int stepY = y1 < y2 ? 1 : -1;
            int err = dx - dy;
            while (true) {
                set(x1, y1, colour);
                if (x1 == x2 && y1 == y2) return;
                int e2 = err * 2;
                if (e2 > -dy) {
                    err -= dy;
                    x1 += stepX;
                }
                if (e2 < dx) {
                    err += dx;
                    y1 += stepY;
                }
            }
        }

        /**
         * The outline of a square of the given side centred on (x, y), turned by angle radians:
         * its corners on a circle, the side first scaled down by sqrt(2) and rounded, in the
         * float and double steps of Redis's drawing so that the corners round alike.
         */
        void square(int x, int y, float side, float angle, int colour) {
            float size = (float) cRound((float) (side / 1.4142135623));
            int[] px = new int[4];
            int[] py = new int[4];
            float k = (float) (Math.PI / 4 + angle);
            for (int j = 0; j < 4; j++) {
                px[j] = (int) cRound(Math.sin(k) * size + x);
                py[j] = (int) cRound(Math.cos(k) * size + y);
                k = (float) (k + Math.PI / 2);
            }
            for (int j = 0; j < 4; j++) line(px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4], colour);
        }

        /** C's round(): halves away from zero (Math.round takes them up). */
        private static double cRound(double v) {
            double whole = Math.floor(Math.abs(v));
            if (Math.abs(v) - whole >= 0.5) whole += 1;
            return Math.copySign(whole, v);
        }
    }
}
