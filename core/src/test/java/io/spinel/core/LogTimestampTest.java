package io.spinel.core;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.TimeZone;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Log's hand-made timestamps read as java.time's formatter writes them, in any zone. */
class LogTimestampTest {
    private static final DateTimeFormatter REDIS_FORMAT =
            DateTimeFormatter.ofPattern("dd MMM yyyy HH:mm:ss.SSS", Locale.ENGLISH);

    private static void assertLikeJavaTime(long ms, String zone) {
        String expected = REDIS_FORMAT.format(Instant.ofEpochMilli(ms).atZone(ZoneId.of(zone)));
        assertEquals(expected, Log.timestamp(ms, TimeZone.getTimeZone(zone)), "at " + ms + " in " + zone);
    }

    @Test
    void randomInstantsFrom1970To2200InSeveralZones() {
        SplittableRandom rnd = new SplittableRandom(7);
        String[] zones = {"UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Kiritimati"};
        long end = Instant.parse("2200-01-01T00:00:00Z").toEpochMilli();
        for (String zone : zones) {
            for (int i = 0; i < 20_000; i++) assertLikeJavaTime(rnd.nextLong(end), zone);
        }
    }

    @Test
    void edgesOfDaysMonthsLeapYearsAndDaylightSaving() {
        String[] instants = {
            "1970-01-01T00:00:00Z", "1999-12-31T23:59:59.999Z", "2000-02-29T12:00:00.005Z", "2000-03-01T00:00:00Z",
            "2024-02-29T23:59:59.999Z", "2100-02-28T23:59:59.999Z", "2100-03-01T00:00:00.000Z",
            "2026-03-29T00:59:59.999Z", "2026-03-29T01:00:00Z", "2026-10-25T00:59:59.999Z", "2026-10-25T01:00:00Z",
            "2026-03-08T06:59:59.999Z", "2026-03-08T07:00:00Z", "2026-11-01T05:59:59.999Z", "2026-11-01T06:00:00Z",
        };
        for (String t : instants) {
            long ms = Instant.parse(t).toEpochMilli();
            for (String zone : new String[] {"UTC", "Europe/Paris", "America/New_York"}) {
                assertLikeJavaTime(ms - 1, zone);
                assertLikeJavaTime(ms, zone);
                assertLikeJavaTime(ms + 1, zone);
            }
        }
    }
}
