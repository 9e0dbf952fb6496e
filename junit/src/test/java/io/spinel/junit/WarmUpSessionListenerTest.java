package io.spinel.junit;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.LauncherSessionListener;

import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** The warm-up is found by JUnit's launcher and runs to its end without leaving a server behind. */
class WarmUpSessionListenerTest {

    @Test
    void isRegisteredForTheLauncher() {
        assertThat(ServiceLoader.load(LauncherSessionListener.class).stream().map(ServiceLoader.Provider::type))
                .contains(WarmUpSessionListener.class);
    }

    @Test
    void warmsUpOnAThreadThatEnds() throws InterruptedException {
        Thread t = new Thread(WarmUpSessionListener::warmUp);
        t.start();
        t.join(30_000);
        assertThat(t.isAlive()).isFalse();
    }
}
