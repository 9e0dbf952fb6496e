package io.spinel.junit;

import io.spinel.core.embedded.ManualClock;
import io.spinel.core.embedded.SpinelClient;
import io.spinel.server.SpinelServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The JUnit Jupiter extension behind {@link Spinel}. Use the annotation; or, to configure in
 * code, register it on a static field:
 *
 * <pre>
 * &#64;RegisterExtension
 * static SpinelExtension spinel = SpinelExtension.builder().config("maxmemory-policy", "allkeys-lru").build();
 * </pre>
 *
 * All state lives in JUnit's extension-context stores, never in static fields, so any number of
 * classes and methods may run in parallel, each with its own server.
 */
public final class SpinelExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SpinelExtension.class);
    private static final String KEY = "server";

    private final Settings programmatic;

    /** Configured by the {@link Spinel} annotation of the test class (defaults without one). */
    public SpinelExtension() {
        this(null);
    }

    private SpinelExtension(Settings settings) {
        this.programmatic = settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings for an extension registered with {@code @RegisterExtension}. */
    public static final class Builder {
        private Spinel.Lifecycle lifecycle = Spinel.Lifecycle.PER_CLASS;
        private boolean flushAfterEach = true;
        private final List<String[]> options = new ArrayList<>();
        private boolean manualClock;

        private Builder() {
        }

        /** Run the server on a {@link ManualClock} that tests inject and move (see {@link Spinel#manualClock()}). */
        public Builder manualClock(boolean manual) {
            this.manualClock = manual;
            return this;
        }

        public Builder lifecycle(Spinel.Lifecycle lifecycle) {
            this.lifecycle = lifecycle;
            return this;
        }

        public Builder flushAfterEach(boolean flush) {
            this.flushAfterEach = flush;
            return this;
        }

        /** A server option, as CONFIG SET name value. */
        public Builder config(String name, String value) {
            options.add(new String[] {name, value});
            return this;
        }

        public SpinelExtension build() {
            return new SpinelExtension(new Settings(lifecycle, flushAfterEach, List.copyOf(options), manualClock));
        }
    }

    private record Settings(Spinel.Lifecycle lifecycle, boolean flushAfterEach, List<String[]> options,
                            boolean manualClock) {
        static final Settings DEFAULT = new Settings(Spinel.Lifecycle.PER_CLASS, true, List.of(), false);

        static Settings of(Spinel a) {
            List<String[]> options = new ArrayList<>();
            for (String line : a.config()) options.add(parseLine(line));
            return new Settings(a.lifecycle(), a.flushAfterEach(), options, a.manualClock());
        }

        /** "name value" as in redis.conf; a value in double quotes may hold spaces. */
        static String[] parseLine(String line) {
            String[] p = line.trim().split("\\s+", 2);
            if (p[0].isEmpty()) throw new ExtensionConfigurationException("@Spinel config: empty line");
            String value = p.length > 1 ? p[1] : "";
            if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                value = value.substring(1, value.length() - 1);
            }
            return new String[] {p[0], value};
        }
    }

    private Settings settings(ExtensionContext ctx) {
        if (programmatic != null) return programmatic;
        for (Class<?> c = ctx.getTestClass().orElse(null); c != null; c = c.getEnclosingClass()) {
            Optional<Spinel> a = AnnotationSupport.findAnnotation(c, Spinel.class);
            if (a.isPresent()) return Settings.of(a.get());
        }
        return Settings.DEFAULT;
    }

    // ---- lifecycle ------------------------------------------------------------------------------

    @Override
    public void beforeAll(ExtensionContext ctx) {
        Settings s = settings(ctx);
        Class<?> testClass = ctx.getRequiredTestClass();
        if (s.lifecycle() == Spinel.Lifecycle.PER_METHOD) {
            List<Field> statics = annotatedFields(testClass, true);
            if (!statics.isEmpty()) {
                throw new ExtensionConfigurationException("static field " + statics.get(0).getName()
                        + " cannot hold a server that changes for every test method (Lifecycle.PER_METHOD)");
            }
            return;
        }
        RunningSpinel r = find(ctx);
        // A @Nested class shares its enclosing class's server unless it asks for one of its own.
        if (r == null || (testClass.getEnclosingClass() != null && AnnotationSupport.isAnnotated(testClass, Spinel.class))) {
            r = start(s, ctx);
        }
        for (Field f : annotatedFields(testClass, true)) inject(f, null, r);
    }

    @Override
    public void afterAll(ExtensionContext ctx) {
        stopIfOwned(ctx);
    }

    @Override
    public void beforeEach(ExtensionContext ctx) {
        Settings s = settings(ctx);
        RunningSpinel r = find(ctx);
        // Without a class-level server (per-method lifecycle, or an extension registered on an
        // instance field, which JUnit only sees once the instance exists) each test gets its own.
        if (r == null || s.lifecycle() == Spinel.Lifecycle.PER_METHOD) r = start(s, ctx);
        Class<?> testClass = ctx.getRequiredTestClass();
        for (Object instance : ctx.getRequiredTestInstances().getAllInstances()) {
            RunningSpinel forInstance = r;
            if (instance.getClass() != testClass) {
                // An enclosing instance of a @Nested test sees the server of its own class.
                RunningSpinel own = find(classContext(ctx, instance.getClass()));
                if (own != null) forInstance = own;
            }
            for (Field f : annotatedFields(instance.getClass(), false)) inject(f, instance, forInstance);
        }
    }

    @Override
    public void afterEach(ExtensionContext ctx) {
        if (stopIfOwned(ctx)) return;
        RunningSpinel r = find(ctx);
        if (r != null && settings(ctx).flushAfterEach()) {
            try {
                r.flushAll();
            } catch (IllegalStateException e) {
                // The test stopped the server (SHUTDOWN): nothing left to empty.
            }
        }
    }

    private RunningSpinel start(Settings s, ExtensionContext ctx) {
        RunningSpinel r;
        try {
            r = RunningSpinel.start(s.options(), s.manualClock(), ctx.getUniqueId());
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException("Spinel configuration: " + e.getMessage(), e);
        }
        ctx.getStore(NS).put(KEY, r);
        return r;
    }

    private static boolean stopIfOwned(ExtensionContext ctx) {
        ExtensionContext.Store store = ctx.getStore(NS);
        RunningSpinel r = store.get(KEY, RunningSpinel.class);
        if (r == null || !r.owner.equals(ctx.getUniqueId())) return false;
        store.remove(KEY);
        r.close();
        return true;
    }

    /** The server visible from a context: its own, or the nearest enclosing one's. */
    private static RunningSpinel find(ExtensionContext ctx) {
        return ctx.getStore(NS).get(KEY, RunningSpinel.class);
    }

    private static ExtensionContext classContext(ExtensionContext ctx, Class<?> testClass) {
        for (ExtensionContext c = ctx; c != null; c = c.getParent().orElse(null)) {
            if (c.getTestMethod().isEmpty() && c.getTestClass().orElse(null) == testClass) return c;
        }
        return ctx;
    }

    // ---- injection ------------------------------------------------------------------------------

    private enum Kind { PORT, HOST, URI, INSTANCE }

    private static Kind kind(AnnotatedElement e) {
        if (e.isAnnotationPresent(SpinelPort.class)) return Kind.PORT;
        if (e.isAnnotationPresent(SpinelHost.class)) return Kind.HOST;
        if (e.isAnnotationPresent(SpinelUri.class)) return Kind.URI;
        if (e.isAnnotationPresent(SpinelInstance.class)) return Kind.INSTANCE;
        return null;
    }

    private static final List<Class<? extends Annotation>> ANNOTATIONS =
            List.of(SpinelPort.class, SpinelHost.class, SpinelUri.class, SpinelInstance.class);

    private static List<Field> annotatedFields(Class<?> type, boolean statics) {
        List<Field> out = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) != statics) continue;
                for (Class<? extends Annotation> a : ANNOTATIONS) {
                    if (f.isAnnotationPresent(a)) {
                        out.add(f);
                        break;
                    }
                }
            }
        }
        return out;
    }

    private static void inject(Field f, Object target, RunningSpinel r) {
        if (Modifier.isFinal(f.getModifiers())) {
            throw new ExtensionConfigurationException("field " + f.getName() + " is final: Spinel cannot inject it");
        }
        Object value = value(kind(f), f.getType(), "field " + f.getName(), r);
        try {
            f.setAccessible(true);
            f.set(target, value);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExtensionConfigurationException("cannot set field " + f.getName() + ": " + e, e);
        }
    }

    private static Object value(Kind kind, Class<?> type, String where, RunningSpinel r) {
        switch (kind) {
            case PORT:
                if (type == int.class || type == Integer.class) return r.port();
                throw new ExtensionConfigurationException("@SpinelPort " + where + " must be an int or Integer");
            case HOST:
                if (type == String.class) return RunningSpinel.HOST;
                throw new ExtensionConfigurationException("@SpinelHost " + where + " must be a String");
            case URI:
                if (type == String.class) return r.uri.toString();
                if (type == URI.class) return r.uri;
                throw new ExtensionConfigurationException("@SpinelUri " + where + " must be a String or java.net.URI");
            default:
                if (type == SpinelServer.class) return r.server;
                if (type == SpinelClient.class) return r.client();
                if (type == ManualClock.class) {
                    if (r.clock != null) return r.clock;
                    throw new ExtensionConfigurationException("@SpinelInstance " + where + ": the server runs on "
                            + "the system clock; ask for a ManualClock with @Spinel(manualClock = true)");
                }
                throw new ExtensionConfigurationException("@SpinelInstance " + where
                        + " must be a SpinelServer, a SpinelClient or a ManualClock");
        }
    }

    // ---- parameters -----------------------------------------------------------------------------

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        Class<?> type = pc.getParameter().getType();
        return kind(pc.getParameter()) != null || type == SpinelServer.class || type == SpinelClient.class
                || type == ManualClock.class;
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
        RunningSpinel r = find(ec);
        if (r == null) {
            throw new ParameterResolutionException("no Spinel server is running for " + pc.getDeclaringExecutable()
                    + " yet: with Lifecycle.PER_METHOD the server starts after the test instance is created, "
                    + "so inject it into fields or method parameters instead of the constructor");
        }
        Class<?> type = pc.getParameter().getType();
        Kind k = kind(pc.getParameter());
        try {
            return value(k != null ? k : Kind.INSTANCE, type, "parameter " + pc.getParameter().getName(), r);
        } catch (ExtensionConfigurationException e) {
            throw new ParameterResolutionException(e.getMessage(), e);
        }
    }
}
