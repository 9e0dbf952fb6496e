package io.spinel.core;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOLWUT's drawing primitives where the differential test cannot reach them: Redis draws turned
 * squares only with its random numbers, so the lines between their corners are checked here for
 * what Bresenham's algorithm promises.
 */
class LolwutCanvasTest {
    @Test
    void linesTakeOneStepPerPixelAlongTheLongerAxisAndStayWithinHalfAPixel() {
        Random r = new Random(5);
        for (int i = 0; i < 2000; i++) {
            int x1 = r.nextInt(40), y1 = r.nextInt(40), x2 = r.nextInt(40), y2 = r.nextInt(40);
            Lolwut.Canvas c = new Lolwut.Canvas(40, 40, 0);
            c.line(x1, y1, x2, y2, 1);
            int drawn = 0;
            for (int y = 0; y < 40; y++) {
                for (int x = 0; x < 40; x++) {
                    if (c.get(x, y) == 0) continue;
                    drawn++;
                    // every pixel lies within half a pixel (along the shorter axis) of the true line
                    double cross = Math.abs((double) (x2 - x1) * (y - y1) - (double) (y2 - y1) * (x - x1));
                    double longer = Math.max(Math.abs(x2 - x1), Math.abs(y2 - y1));
                    assertThat(cross).as("pixel %d,%d of %d,%d-%d,%d", x, y, x1, y1, x2, y2).isLessThanOrEqualTo(longer / 2 + 1e-9);
                }
            }
            assertThat(c.get(x1, y1)).isEqualTo(1);
            assertThat(c.get(x2, y2)).isEqualTo(1);
            assertThat(drawn).as("%d,%d-%d,%d", x1, y1, x2, y2).isEqualTo(Math.max(Math.abs(x2 - x1), Math.abs(y2 - y1)) + 1);
        }
    }

    @Test
    void aSquareTurnedByAQuarterTurnIsTheSameSquare() {
        Lolwut.Canvas straight = new Lolwut.Canvas(60, 60, 0);
        straight.square(30, 30, 20f, 0f, 1);
        Lolwut.Canvas turned = new Lolwut.Canvas(60, 60, 0);
        turned.square(30, 30, 20f, (float) (Math.PI / 2), 1);
        int ink = 0;
        for (int y = 0; y < 60; y++) {
            for (int x = 0; x < 60; x++) {
                assertThat(turned.get(x, y)).as("%d,%d", x, y).isEqualTo(straight.get(x, y));
                ink += straight.get(x, y);
            }
        }
        // side 20 / sqrt(2), rounded: 14, the corners 14 from the centre along the axes turned 45 degrees
        assertThat(straight.get(30 + 10, 30 + 10)).isEqualTo(1);
        assertThat(ink).isGreaterThan(4 * 19);
    }
}
