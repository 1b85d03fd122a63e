/*
 * kgverify neo4j-local -- embedded Neo4j Community launcher.
 * Copyright (C) kgverify contributors.
 *
 * This file is part of docker/neo4j-local, which links Neo4j Community and is
 * licensed under the GNU General Public License, version 3 (see ../LICENSE).
 */
package org.kgverify.neo4jlocal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.SettingValueParsers;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.server.configuration.ConfigurableServerModules;
import org.neo4j.server.configuration.ServerSettings;

import inet.ipaddr.IPAddressString;

/**
 * Runs Neo4j Community embedded, with a Bolt connector on 127.0.0.1 only and, with
 * {@code --http-port}, Neo4j's HTTP connector (Neo4j Browser under /browser/, the HTTP API)
 * on 127.0.0.1 as well.
 *
 * <pre>
 * java -Xmx512m -cp BUILD/neo4j-local.jar:BUILD/lib/* org.kgverify.neo4jlocal.LocalServer \
 *     --home DIR --bolt-port PORT --password-file FILE --plugins DIR \
 *     [--http-port PORT] [--pagecache 512m] [--transaction-memory SIZE] [--ready-file FILE]
 * </pre>
 *
 * Output protocol (see README.md): one {@code KGVERIFY_NEO4J_READY ...} line on stdout once
 * Bolt accepts connections with the configured password, one {@code KGVERIFY_NEO4J_STOPPED}
 * line after a clean shutdown, and {@code error: ...} lines on stderr with a non-zero exit
 * code for failures.
 */
public final class LocalServer {

    public static final String READY_PREFIX = "KGVERIFY_NEO4J_READY";
    public static final String STOPPED_LINE = "KGVERIFY_NEO4J_STOPPED";
    public static final String BIND_HOST = "127.0.0.1";
    /** kgverify's Browser style and audit guide, in this jar next to the Browser's own files. */
    public static final String STYLE_PATH = "/browser/kgverify/style.grass";
    public static final String GUIDE_PATH = "/browser/kgverify/audit.html";

    /** Exit codes; kept in sync with README.md. */
    static final int EXIT_OK = 0;
    static final int EXIT_UNEXPECTED = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_PORT_IN_USE = 3;
    static final int EXIT_STORE_LOCKED = 4;
    static final int EXIT_PASSWORD = 5;
    static final int EXIT_APOC = 6;

    private static final String USAGE = "usage: LocalServer --home DIR --bolt-port PORT --password-file FILE"
            + " --plugins DIR [--http-port PORT] [--pagecache SIZE] [--transaction-memory SIZE]"
            + " [--ready-file FILE]";

    private static final CountDownLatch STOP_REQUESTED = new CountDownLatch(1);
    private static final AtomicBoolean STOPPED = new AtomicBoolean(false);
    private static volatile DatabaseManagementService service;
    private static volatile Path readyFile;

    private LocalServer() {}

    /** An expected failure: printed as one {@code error:} line, no stack trace. */
    static final class Failure extends Exception {
        final int exitCode;

        Failure(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
        }
    }

    static final class Options {
        Path home;
        int boltPort = -1;
        int httpPort = 0; // 0: no HTTP connector, no Browser
        Path passwordFile;
        Path plugins;
        String pagecache = "512m";
        String transactionMemory; // one transaction's memory limit; null: Neo4j's default
        Path readyFile;
    }

    public static void main(String[] args) {
        int code;
        try {
            run(args);
            code = EXIT_OK;
        } catch (Failure f) {
            if (f.exitCode == EXIT_OK) {
                System.out.println(f.getMessage()); // --help
            } else {
                System.err.println("error: " + f.getMessage());
            }
            code = f.exitCode;
        } catch (Throwable t) {
            System.err.println("error: unexpected failure: " + t);
            t.printStackTrace(System.err);
            code = EXIT_UNEXPECTED;
        }
        if (code != EXIT_OK) {
            // Release the store lock before exiting if the service got that far.
            stopService(false);
        }
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }

    static void run(String[] args) throws Exception {
        Options opt = parseArgs(args);
        String password = readPassword(opt.passwordFile);
        long pagecacheBytes;
        try {
            pagecacheBytes = SettingValueParsers.BYTES.parse(opt.pagecache);
        } catch (RuntimeException e) {
            throw new Failure(EXIT_USAGE, "invalid --pagecache value '" + opt.pagecache + "' (use e.g. 256m, 1g)");
        }
        Long transactionBytes = null;
        if (opt.transactionMemory != null) {
            try {
                transactionBytes = SettingValueParsers.BYTES.parse(opt.transactionMemory);
            } catch (RuntimeException e) {
                throw new Failure(EXIT_USAGE, "invalid --transaction-memory value '" + opt.transactionMemory
                        + "' (use e.g. 64m, 1g)");
            }
        }

        checkApocOnClasspath(opt.plugins);
        checkPortFree(opt.boltPort);
        // The Browser is a convenience: a taken HTTP port (e.g. a Neo4j Desktop on 7474) must
        // not keep the engine's Bolt server from starting. Said in the ready line instead.
        String http = "off";
        if (opt.httpPort > 0) {
            http = portFree(opt.httpPort) ? "http://" + BIND_HOST + ":" + opt.httpPort : "busy:" + opt.httpPort;
        }
        boolean httpOn = http.startsWith("http://");
        Files.createDirectories(opt.home);
        Path importDir = privateImportDir(opt.home);
        denyApocFileAccess();

        Map<Setting<?>, Object> cfg = new HashMap<>();
        cfg.put(GraphDatabaseSettings.default_listen_address, new SocketAddress(BIND_HOST));
        cfg.put(BoltConnector.enabled, true);
        cfg.put(BoltConnector.listen_address, new SocketAddress(BIND_HOST, opt.boltPort));
        cfg.put(BoltConnector.advertised_address, new SocketAddress(BIND_HOST, opt.boltPort));
        cfg.put(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED);
        cfg.put(HttpConnector.enabled, httpOn);
        if (httpOn) {
            // Neo4j Browser (static files from the neo4j-browser jar on the classpath, under
            // /browser/) and the HTTP APIs, which need the password like Bolt does.
            cfg.put(HttpConnector.listen_address, new SocketAddress(BIND_HOST, opt.httpPort));
            cfg.put(HttpConnector.advertised_address, new SocketAddress(BIND_HOST, opt.httpPort));
            cfg.put(ServerSettings.http_enabled_modules, Set.of(
                    ConfigurableServerModules.BROWSER,
                    ConfigurableServerModules.TRANSACTIONAL_ENDPOINTS,
                    ConfigurableServerModules.QUERY_API_ENDPOINTS));
            // Only pages served from this origin may call the HTTP API from a web browser.
            cfg.put(ServerSettings.http_access_control_allow_origin, "http://" + BIND_HOST + ":" + opt.httpPort);
            // Browser would otherwise send usage data out (like usage reporting, off).
            cfg.put(ServerSettings.allow_telemetry, false);
            // kgverify's style (captions by name, a colour per label) and audit guide: static
            // and public under /browser/kgverify/ like the Browser's own files, applied and
            // shown each time the Browser connects. The Browser fetches :style and :play URLs
            // only from hosts on this list (it compares host names, not ports).
            cfg.put(ServerSettings.browser_remote_content_hostname_whitelist, "http://" + BIND_HOST);
            String postConnect = browserPostConnect("http://" + BIND_HOST + ":" + opt.httpPort);
            if (!postConnect.isEmpty()) {
                cfg.put(ServerSettings.browser_post_connect_cmd, postConnect);
            }
        }
        cfg.put(HttpsConnector.enabled, false);
        // Server-side routing would open a second connector (:7688); not wanted.
        cfg.put(GraphDatabaseSettings.routing_enabled, false);
        cfg.put(GraphDatabaseSettings.udc_enabled, false);
        cfg.put(GraphDatabaseSettings.auth_enabled, true);
        cfg.put(GraphDatabaseSettings.plugin_dir, opt.plugins);
        cfg.put(GraphDatabaseSettings.procedure_unrestricted, List.of("apoc.*"));
        cfg.put(GraphDatabaseSettings.procedure_allowlist, List.of("apoc.*"));
        cfg.put(GraphDatabaseSettings.pagecache_memory, pagecacheBytes);
        // The JVM runs as the invoking user: a statement must not read that user's files
        // (LOAD CSV FROM 'file:///...', apoc.load.json of a file) nor fetch URLs. Unset, the
        // embedded default lets LOAD CSV read any file. APOC follows allow_file_urls too.
        cfg.put(GraphDatabaseSettings.allow_file_urls, false);
        cfg.put(GraphDatabaseSettings.load_csv_file_url_root, importDir);
        cfg.put(GraphDatabaseInternalSettings.cypher_ip_blocklist,
                List.of(new IPAddressString("0.0.0.0/0"), new IPAddressString("::/0")));
        if (transactionBytes != null) {
            // db.memory.transaction.max: what one transaction may hold (Community cannot change
            // it at run time); unset, only the total over all transactions bounds it.
            cfg.put(GraphDatabaseSettings.memory_transaction_max_size, transactionBytes);
        }
        // Keep transaction logs small: retain only the newest file, rotate at 64 MiB, no preallocation.
        cfg.put(GraphDatabaseSettings.keep_logical_logs, "1 files");
        cfg.put(GraphDatabaseSettings.logical_log_rotation_threshold, 64L * 1024 * 1024);
        cfg.put(GraphDatabaseSettings.preallocate_logical_logs, false);
        // Netty waits a 5 s quiet period per event-loop group on shutdown (~10 s in total); the
        // databases are already checkpointed and closed at that point, so skip the wait.
        cfg.put(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0);

        installSignalHandlers();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopService(true), "kgverify-neo4j-shutdown"));

        try {
            service = new DatabaseManagementServiceBuilder(opt.home).setConfig(cfg).build();
        } catch (RuntimeException e) {
            throw classifyStartupFailure(e, opt);
        }
        // This process now owns the home (store lock held). Only from here on is the ready file
        // ours to manage, so a failed second instance never deletes a running server's ready file.
        if (opt.readyFile != null) {
            Files.deleteIfExists(opt.readyFile); // stale file from an earlier run
            readyFile = opt.readyFile;
        }

        setPassword(service, password);
        String apocVersion = checkApoc(service);

        if (STOP_REQUESTED.getCount() == 0) { // SIGTERM/SIGINT arrived during startup
            stopService(true);
            return;
        }
        String line = READY_PREFIX + " bolt://" + BIND_HOST + ":" + opt.boltPort + " apoc=" + apocVersion
                + " http=" + http;
        if (readyFile != null) {
            writeAtomically(readyFile, line + "\n");
        }
        System.out.println(line);
        System.out.flush();

        STOP_REQUESTED.await();
        stopService(true);
    }

    // ------------------------------------------------------------------ arguments

    static Options parseArgs(String[] args) throws Failure {
        Options o = new Options();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            if (a.equals("-h") || a.equals("--help")) {
                throw new Failure(EXIT_OK, USAGE);
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new Failure(EXIT_USAGE, "missing value for " + a + "; " + USAGE);
                }
                value = args[++i];
            }
            switch (a) {
                case "--home" -> o.home = Path.of(value).toAbsolutePath().normalize();
                case "--bolt-port" -> {
                    try {
                        o.boltPort = Integer.parseInt(value.trim());
                    } catch (NumberFormatException e) {
                        throw new Failure(EXIT_USAGE, "--bolt-port must be an integer, got '" + value + "'");
                    }
                    if (o.boltPort < 1 || o.boltPort > 65535) {
                        throw new Failure(EXIT_USAGE, "--bolt-port must be in 1..65535, got " + o.boltPort);
                    }
                }
                case "--http-port" -> {
                    try {
                        o.httpPort = Integer.parseInt(value.trim());
                    } catch (NumberFormatException e) {
                        throw new Failure(EXIT_USAGE, "--http-port must be an integer, got '" + value + "'");
                    }
                    if (o.httpPort < 0 || o.httpPort > 65535) {
                        throw new Failure(EXIT_USAGE, "--http-port must be in 0..65535, got " + o.httpPort);
                    }
                }
                case "--password-file" -> o.passwordFile = Path.of(value).toAbsolutePath();
                case "--plugins" -> o.plugins = Path.of(value).toAbsolutePath().normalize();
                case "--pagecache" -> o.pagecache = value.trim();
                case "--transaction-memory" -> o.transactionMemory = value.trim();
                case "--ready-file" -> o.readyFile = Path.of(value).toAbsolutePath();
                default -> throw new Failure(EXIT_USAGE, "unknown argument '" + a + "'; " + USAGE);
            }
        }
        if (o.home == null) throw new Failure(EXIT_USAGE, "--home is required; " + USAGE);
        if (o.boltPort < 0) throw new Failure(EXIT_USAGE, "--bolt-port is required; " + USAGE);
        if (o.passwordFile == null) throw new Failure(EXIT_USAGE, "--password-file is required; " + USAGE);
        if (o.plugins == null) throw new Failure(EXIT_USAGE, "--plugins is required; " + USAGE);
        if (o.httpPort == o.boltPort) {
            throw new Failure(EXIT_USAGE, "--http-port and --bolt-port must differ, both are " + o.boltPort);
        }
        if (!Files.isDirectory(o.plugins)) {
            throw new Failure(EXIT_USAGE, "--plugins directory does not exist: " + o.plugins);
        }
        if (Files.exists(o.home) && !Files.isDirectory(o.home)) {
            throw new Failure(EXIT_USAGE, "--home exists and is not a directory: " + o.home);
        }
        return o;
    }

    static String readPassword(Path file) throws Failure {
        String pw;
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            pw = lines.isEmpty() ? "" : lines.get(0).trim();
        } catch (IOException e) {
            throw new Failure(EXIT_USAGE, "cannot read --password-file " + file + ": " + e.getClass().getSimpleName());
        }
        if (pw.isEmpty()) {
            throw new Failure(EXIT_USAGE, "--password-file " + file + " is empty (first line is the password)");
        }
        return pw;
    }

    /**
     * The Browser commands run after each connect ({@code browser.post_connect_cmd}, split on
     * {@code ;}, each prefixed with {@code :} by the Browser): the style, then the guide. Empty
     * when this jar lacks them (a build without the resources), so nothing fails to load.
     */
    static String browserPostConnect(String base) {
        StringBuilder cmd = new StringBuilder();
        if (LocalServer.class.getResource(STYLE_PATH) != null) {
            cmd.append("style ").append(base).append(STYLE_PATH);
        }
        if (LocalServer.class.getResource(GUIDE_PATH) != null) {
            cmd.append(cmd.length() > 0 ? "; " : "").append("play ").append(base).append(GUIDE_PATH);
        }
        return cmd.toString();
    }

    // ------------------------------------------------------------------ file access

    /** HOME/import, empty and owner-only: the only folder LOAD CSV could name (it is off). */
    static Path privateImportDir(Path home) throws IOException {
        Path dir = home.resolve("import");
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        return dir;
    }

    /**
     * APOC reads its settings from the environment, then system properties, then apoc.conf
     * (the first that has a key wins); the Python side starts this JVM without APOC_* variables,
     * so these properties decide: no file import or export, and Neo4j's file rules apply.
     */
    static void denyApocFileAccess() {
        System.setProperty("apoc.import.file.enabled", "false");
        System.setProperty("apoc.export.file.enabled", "false");
        System.setProperty("apoc.import.file.use_neo4j_config", "true");
    }

    // ------------------------------------------------------------------ startup checks

    static void setPassword(DatabaseManagementService dbms, String password) throws Failure {
        GraphDatabaseService system = dbms.database("system");
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PLAINTEXT PASSWORD $password CHANGE NOT REQUIRED",
                    Map.of("password", password));
        } catch (RuntimeException e) {
            String msg = scrub(rootMessage(e), password);
            // Neo4j refuses to "change" a password to the value it already has. That is the
            // normal case on every start after the first: only clear the change-required flag.
            if (msg.toLowerCase().contains("old password and new password cannot be the same")) {
                try {
                    system.executeTransactionally("ALTER USER neo4j SET PASSWORD CHANGE NOT REQUIRED");
                    return;
                } catch (RuntimeException e2) {
                    msg = scrub(rootMessage(e2), password);
                }
            }
            throw new Failure(EXIT_PASSWORD, "could not set the password of user 'neo4j': " + msg);
        }
    }

    /**
     * APOC registers Neo4j kernel extensions (apoc.ApocConfig etc.), which Neo4j discovers only on
     * the JVM classpath; its procedures are loaded from the plugin directory. Like the Neo4j server
     * scripts (classpath lib/*:plugins/*), the plugin jars must therefore be on both.
     */
    static void checkApocOnClasspath(Path plugins) throws Failure {
        try {
            Class.forName("apoc.ApocConfig", false, LocalServer.class.getClassLoader());
            Class.forName("apoc.CoreApocGlobalComponents", false, LocalServer.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new Failure(EXIT_APOC, "APOC classes are not on the JVM classpath: add '" + plugins
                    + "/*' to -cp (the apoc-core and apoc-common jars must be both on the classpath and in"
                    + " --plugins)");
        }
    }

    static String checkApoc(DatabaseManagementService dbms) throws Failure {
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        try {
            Object v = db.executeTransactionally("RETURN apoc.version() AS v", Map.of(),
                    r -> r.hasNext() ? r.next().get("v") : null);
            if (v == null) {
                throw new Failure(EXIT_APOC, "APOC is not available: apoc.version() returned nothing");
            }
            return v.toString();
        } catch (RuntimeException e) {
            throw new Failure(EXIT_APOC, "APOC is not available (is apoc-core*.jar in the --plugins directory?): "
                    + rootMessage(e));
        }
    }

    /** Fast, clear failure before the (slow) DBMS start; Neo4j's own bind error is the fallback. */
    static void checkPortFree(int port) throws Failure {
        if (!portFree(port)) {
            throw new Failure(EXIT_PORT_IN_USE, "bolt port " + BIND_HOST + ":" + port + " is already in use");
        }
    }

    static boolean portFree(int port) {
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.setReuseAddress(true); // same as Netty, so TIME_WAIT sockets do not count as "in use"
            probe.bind(new java.net.InetSocketAddress(BIND_HOST, port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static Failure classifyStartupFailure(RuntimeException e, Options opt) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String cls = t.getClass().getName();
            String msg = String.valueOf(t.getMessage());
            if (cls.endsWith("PortBindException") || t instanceof java.net.BindException
                    || msg.contains("already in use")) {
                return new Failure(EXIT_PORT_IN_USE, "bolt port " + BIND_HOST + ":" + opt.boltPort
                        + " is already in use");
            }
            if (cls.endsWith("FileLockException") || msg.contains("locked by another process")) {
                return new Failure(EXIT_STORE_LOCKED, "the Neo4j home " + opt.home
                        + " is locked by another process (another LocalServer or an import is using it)");
            }
            if (t.getCause() == t) break;
        }
        // Not an expected case: let main() print the stack trace.
        throw e;
    }

    // ------------------------------------------------------------------ shutdown

    @SuppressWarnings("restriction")
    private static void installSignalHandlers() {
        // Handling TERM/INT ourselves (instead of only a shutdown hook) lets the main thread
        // shut the DBMS down and exit with status 0. The shutdown hook stays as a fallback.
        for (String sig : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(sig), s -> STOP_REQUESTED.countDown());
            } catch (Throwable ignored) {
                // e.g. -Xrs; the shutdown hook still stops the DBMS cleanly.
            }
        }
    }

    /** Idempotent: stops the DBMS once, then prints the stopped line (if it was started). */
    static void stopService(boolean announce) {
        if (!STOPPED.compareAndSet(false, true)) {
            return;
        }
        STOP_REQUESTED.countDown();
        Path rf = readyFile;
        if (rf != null) {
            try {
                Files.deleteIfExists(rf);
            } catch (IOException ignored) {
                // best effort
            }
        }
        DatabaseManagementService s = service;
        if (s == null) {
            return;
        }
        try {
            s.shutdown();
        } catch (Throwable t) {
            System.err.println("error: shutdown failed: " + t);
            t.printStackTrace(System.err);
            return;
        }
        if (announce) {
            PrintStream out = System.out;
            out.println(STOPPED_LINE);
            out.flush();
        }
    }

    // ------------------------------------------------------------------ helpers

    static void writeAtomically(Path target, String content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Path tmp = Files.createTempFile(dir, ".ready", ".tmp");
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return (m == null || m.isBlank()) ? t.getClass().getSimpleName() : m.replace('\n', ' ').trim();
    }

    static String scrub(String message, String secret) {
        return (secret == null || secret.isEmpty()) ? message : message.replace(secret, "***");
    }
}
