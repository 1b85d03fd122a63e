/*
 * kgverify neo4j-local -- bulk import entry point.
 * Copyright (C) kgverify contributors.
 *
 * This file is part of docker/neo4j-local, which links Neo4j Community and is
 * licensed under the GNU General Public License, version 3 (see ../LICENSE).
 */
package org.kgverify.neo4jlocal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.neo4j.cli.AdminTool;
import org.neo4j.cli.ExecutionContext;

/**
 * Runs {@code neo4j-admin database import full} against the same home directory that
 * {@link LocalServer} uses (store under {@code HOME/data}), without NEO4J_HOME/NEO4J_CONF.
 *
 * <pre>
 * java -cp BUILD/neo4j-local.jar:BUILD/lib/* org.kgverify.neo4jlocal.BulkImport --home DIR -- \
 *     --nodes=nodes.csv --relationships=rels.csv --overwrite-destination=true neo4j
 * </pre>
 *
 * Arguments after {@code --} are the options of {@code database import full}. If they start
 * with {@code database} they are passed to the admin tool verbatim instead (any neo4j-admin
 * command, e.g. {@code database info}). The server must be stopped; a running server holds the
 * store lock and the import fails. Unless {@code --report-file} is given, the import report goes
 * to {@code HOME/logs/import.report} (neo4j-admin's default is the working directory).
 * Exit code: the admin tool's (0 = success, 1 = failure), 2 for bad usage of this wrapper.
 */
public final class BulkImport {

    private static final String USAGE =
            "usage: BulkImport --home DIR -- <database import full options> [database-name]";

    private BulkImport() {}

    public static void main(String[] args) {
        Path home = null;
        int i = 0;
        for (; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                i++;
                break;
            } else if (a.equals("--home") && i + 1 < args.length) {
                home = Path.of(args[++i]);
            } else if (a.startsWith("--home=")) {
                home = Path.of(a.substring("--home=".length()));
            } else {
                System.err.println("error: unexpected argument '" + a + "' before '--'; " + USAGE);
                System.exit(LocalServer.EXIT_USAGE);
                return;
            }
        }
        if (home == null) {
            System.err.println("error: --home is required; " + USAGE);
            System.exit(LocalServer.EXIT_USAGE);
            return;
        }
        List<String> rest = new ArrayList<>(Arrays.asList(args).subList(i, args.length));
        if (rest.isEmpty()) {
            System.err.println("error: no import arguments after '--'; " + USAGE);
            System.exit(LocalServer.EXIT_USAGE);
            return;
        }
        List<String> adminArgs = new ArrayList<>();
        if (!rest.get(0).equals("database")) {
            adminArgs.addAll(List.of("database", "import", "full"));
        }
        adminArgs.addAll(rest);
        boolean isImport = adminArgs.size() >= 2 && adminArgs.get(0).equals("database")
                && adminArgs.get(1).equals("import");
        boolean hasReport = adminArgs.stream().anyMatch(a -> a.startsWith("--report-file"));

        int code;
        try {
            home = home.toAbsolutePath().normalize();
            Path conf = home.resolve("conf");
            Files.createDirectories(conf);
            if (isImport && !hasReport) {
                // neo4j-admin writes import.report into the working directory by default.
                Path logs = home.resolve("logs");
                Files.createDirectories(logs);
                int at = Math.min(3, adminArgs.size());
                adminArgs.add(at, "--report-file=" + logs.resolve("import.report"));
            }
            code = AdminTool.execute(new ExecutionContext(home, conf), adminArgs.toArray(new String[0]));
        } catch (Throwable t) {
            System.err.println("error: import failed unexpectedly: " + t);
            t.printStackTrace(System.err);
            code = 1;
        }
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }
}
