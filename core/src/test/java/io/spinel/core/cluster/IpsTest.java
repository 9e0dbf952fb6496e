package io.spinel.core.cluster;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** CLUSTER MEET's address check and the form nodes see, as inet_pton then inet_ntop give them. */
class IpsTest {
    @Test
    void ipv4LiteralsOnly() {
        assertEquals("127.0.0.1", Ips.normalize("127.0.0.1"));
        assertEquals("255.255.255.255", Ips.normalize("255.255.255.255"));
        assertNull(Ips.normalize("1.2.3"));
        assertNull(Ips.normalize("1.2.3.256"));
        assertNull(Ips.normalize("01.2.3.4")); // inet_pton takes no leading zeros
        assertNull(Ips.normalize("localhost")); // never a name lookup
        assertNull(Ips.normalize(""));
        assertNull(Ips.normalize("1.2.3.4 "));
    }

    @Test
    void ipv6InItsShortestForm() {
        assertEquals("::1", Ips.normalize("0:0:0:0:0:0:0:1"));
        assertEquals("::", Ips.normalize("::"));
        assertEquals("2001:db8::1", Ips.normalize("2001:0db8:0000:0000:0000:0000:0000:0001"));
        assertEquals("fe80::", Ips.normalize("fe80:0:0:0:0:0:0:0"));
        assertEquals("1:0:2::3", Ips.normalize("1:0:2:0:0:0:0:3")); // the longest run of zeros goes
        assertEquals("1::2:0:0:3", Ips.normalize("1:0:0:0:2:0:0:3")); // the first of equal runs
        assertEquals("1:2:3:4:5:6:7:8", Ips.normalize("1:2:3:4:5:6:7:8"));
        assertEquals("1:0:3:4:5:6:7:8", Ips.normalize("1:0:3:4:5:6:7:8")); // one zero group stays
        assertEquals("::ffff:1.2.3.4", Ips.normalize("::ffff:1.2.3.4"));
        assertEquals("abcd::", Ips.normalize("ABCD::"));
        assertNull(Ips.normalize("1::2::3"));
        assertNull(Ips.normalize("1:2:3:4:5:6:7:8:9"));
        assertNull(Ips.normalize("12345::"));
        assertNull(Ips.normalize("fe80::1%eth0"));
        assertNull(Ips.normalize("g::1"));
    }
}
