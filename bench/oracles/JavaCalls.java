// The Java compiler as an oracle of call edges, for `graph-eval`.
//
//   java bench/oracles/JavaCalls.java <repository root>   (file list on stdin)
//
// stdin: repository-relative paths of the .java files wit indexes, one a line. stdout: one
// JSON object per method invocation (`m(x)`, `a.b.m(x)`, `Outer.this.m()`, `super.m()`,
// `Type.<T>m()`); `this(…)` and `super(…)` in constructors and `new` expressions are left
// out, as wit records neither:
//
//   {"file", "line", "byte", "callee", "receiver", "target"}
//
// with the meanings of ts_calls.mjs: `line` is the 0-based line of the invocation's start
// (the start of its receiver, as javac and tree-sitter both count it), `byte` its UTF-8
// byte offset, `receiver` null for a plain call, else the receiver as wit's analyzer
// spells it (a name or chain of names without whitespace, `this`, `super`, `new:Type`, or
// "" for any other expression). `target` is the method javac's attribution binds the
// invocation to (`Trees.getElement`): null when it binds none (an error: a missing
// dependency); else {"file", "name", "line", "name_line", "external", "function", "kind"},
// where `name` joins the enclosing classes' names with '.' (`ArrayList.SubList.add`; an
// anonymous class is `<anonymous>`), `line` is the 0-based line of the declaration's
// start (its modifiers) and `name_line` of its name, `external` true when the method is
// declared outside the given files (the JDK's classes, a dependency), and `kind`
// `method`, or `interface-method` for an abstract method of an interface (the
// implementation that runs is not known).
//
// The files are compiled together by javac's API (com.sun.source, `JavacTask.analyze`),
// with no annotation processing and with attribution carried on past errors (dependencies
// the repository does not hold are missing; what can be attributed still is). The source
// path is each file's root, derived from its package declaration. Files of the JDK's own
// modules (a path starting `java/`, as in the JDK's src.zip) are compiled as a patch of
// `java.base`.

import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import javax.lang.model.element.*;
import javax.tools.*;

public class JavaCalls {
    static Path root;
    static Map<CompilationUnitTree, String> rels = new HashMap<>();
    static Trees trees;
    static SourcePositions positions;
    static int sites = 0;

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java JavaCalls.java <repository root> < files");
            System.exit(2);
        }
        root = Paths.get(args[0]).toRealPath();
        List<String> files = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank()) files.add(line.strip());
            }
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8);
        List<File> paths = new ArrayList<>();
        Map<String, String> byPath = new HashMap<>();
        Set<String> sourceRoots = new TreeSet<>();
        boolean jdk = false;
        for (String rel : files) {
            File f = root.resolve(rel).toFile();
            paths.add(f);
            byPath.put(f.toPath().toRealPath().toString(), rel);
            if (rel.startsWith("java/")) jdk = true;
            sourceRoots.add(sourceRoot(rel, Files.readString(f.toPath(), StandardCharsets.UTF_8)));
        }
        List<String> options = new ArrayList<>(List.of(
            "-proc:none", "-implicit:none", "-nowarn", "-Xlint:none", "-Xmaxerrs", "0",
            "-XDshould-stop.ifError=FLOW", "-XDshould-stop.ifNoError=FLOW"));
        if (jdk) {
            options.addAll(List.of("--patch-module", "java.base=" + root));
        } else {
            options.addAll(List.of("-sourcepath", String.join(File.pathSeparator, sourceRoots)));
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavacTask task = (JavacTask) compiler.getTask(null, fm, diagnostics, options, null,
            fm.getJavaFileObjectsFromFiles(paths));
        trees = Trees.instance(task);
        positions = trees.getSourcePositions();
        List<CompilationUnitTree> units = new ArrayList<>();
        for (CompilationUnitTree cu : task.parse()) {
            String rel = byPath.get(Paths.get(cu.getSourceFile().toUri()).toRealPath().toString());
            if (rel != null) {
                rels.put(cu, rel);
                units.add(cu);
            }
        }
        task.analyze();
        long errors = diagnostics.getDiagnostics().stream()
            .filter(d -> d.getKind() == Diagnostic.Kind.ERROR).count();
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)), false, StandardCharsets.UTF_8);
        for (CompilationUnitTree cu : units) {
            new Scanner(cu, out).scan(cu, null);
        }
        out.flush();
        System.err.println("JavaCalls: " + sites + " call sites in " + units.size() + " files ("
            + errors + " compilation errors, expected where dependencies are missing)");
    }

    /** The source root of a file: its directory without the package's directories. */
    static String sourceRoot(String rel, String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern
            .compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;").matcher(text);
        Path dir = root.resolve(rel).getParent();
        if (m.find()) {
            for (String ignored : m.group(1).split("\\.")) {
                if (dir != null) dir = dir.getParent();
            }
        }
        return (dir == null ? root : dir).toString();
    }

    static final class Scanner extends TreePathScanner<Void, Void> {
        final CompilationUnitTree cu;
        final PrintStream out;
        final String text;
        final int[] bytes;

        Scanner(CompilationUnitTree cu, PrintStream out) throws IOException {
            this.cu = cu;
            this.out = out;
            this.text = cu.getSourceFile().getCharContent(true).toString();
            // UTF-8 byte offset of every char offset.
            this.bytes = new int[text.length() + 1];
            int b = 0;
            for (int i = 0; i < text.length(); i++) {
                bytes[i] = b;
                char c = text.charAt(i);
                if (c < 0x80) b += 1;
                else if (c < 0x800) b += 2;
                else if (Character.isHighSurrogate(c)) b += 2; // with its low half: 4
                else if (Character.isLowSurrogate(c)) b += 2;
                else b += 3;
            }
            bytes[text.length()] = b;
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
            ExpressionTree select = node.getMethodSelect();
            String callee;
            String receiver;
            if (select instanceof IdentifierTree id) {
                callee = id.getName().toString();
                receiver = null;
            } else if (select instanceof MemberSelectTree ms) {
                callee = ms.getIdentifier().toString();
                receiver = receiverText(ms.getExpression());
            } else {
                return super.visitMethodInvocation(node, unused);
            }
            if (receiver == null && (callee.equals("this") || callee.equals("super"))) {
                return super.visitMethodInvocation(node, unused);
            }
            long start = positions.getStartPosition(cu, node);
            StringBuilder line = new StringBuilder(256);
            line.append("{\"file\":").append(json(rels.get(cu)))
                .append(",\"line\":").append(cu.getLineMap().getLineNumber(start) - 1)
                .append(",\"byte\":").append(bytes[(int) start])
                .append(",\"callee\":").append(json(callee))
                .append(",\"receiver\":").append(receiver == null ? "null" : json(receiver))
                .append(",\"target\":").append(target(getCurrentPath()))
                .append('}');
            out.println(line);
            sites++;
            return super.visitMethodInvocation(node, unused);
        }

        /** The receiver as wit's analyzer spells it (engine/call.rs, `Receiver::of`). */
        String receiverText(ExpressionTree e) {
            if (e instanceof NewClassTree n) {
                return n.getIdentifier() instanceof IdentifierTree id && n.getEnclosingExpression() == null
                    ? "new:" + id.getName() : "";
            }
            if (!(e instanceof IdentifierTree) && !(e instanceof MemberSelectTree)) return "";
            for (ExpressionTree t = e; ; ) {
                if (t instanceof MemberSelectTree ms) t = ms.getExpression();
                else if (t instanceof IdentifierTree) break;
                else return "";
            }
            long s = positions.getStartPosition(cu, e), en = positions.getEndPosition(cu, e);
            if (s < 0 || en < s || en - s > 256) return "";
            return text.substring((int) s, (int) en).replaceAll("\\s+", "");
        }

        String target(TreePath path) {
            Element e = trees.getElement(path);
            if (!(e instanceof ExecutableElement m) || m.getKind() != ElementKind.METHOD) return "null";
            TreePath decl = trees.getPath(m);
            String kind = m.getModifiers().contains(Modifier.ABSTRACT)
                && m.getEnclosingElement().getKind().isInterface() ? "interface-method" : "method";
            if (decl == null || !rels.containsKey(decl.getCompilationUnit())) {
                TypeElement owner = (TypeElement) m.getEnclosingElement();
                return "{\"file\":" + json(outermost(owner).getQualifiedName().toString())
                    + ",\"name\":" + json(owner.getSimpleName() + "." + m.getSimpleName())
                    + ",\"line\":0,\"name_line\":0,\"external\":true,\"function\":true,\"kind\":"
                    + json(kind) + "}";
            }
            CompilationUnitTree unit = decl.getCompilationUnit();
            long start = positions.getStartPosition(unit, decl.getLeaf());
            long named = namePosition(unit, decl.getLeaf(), m.getSimpleName().toString(), start);
            StringBuilder name = new StringBuilder(m.getSimpleName());
            for (TreePath p = decl.getParentPath(); p != null; p = p.getParentPath()) {
                if (p.getLeaf() instanceof ClassTree c) {
                    String simple = c.getSimpleName().toString();
                    name.insert(0, (simple.isEmpty() ? "<anonymous>" : simple) + ".");
                }
            }
            return "{\"file\":" + json(rels.get(unit)) + ",\"name\":" + json(name.toString())
                + ",\"line\":" + (unit.getLineMap().getLineNumber(start) - 1)
                + ",\"name_line\":" + (unit.getLineMap().getLineNumber(named) - 1)
                + ",\"external\":false,\"function\":true,\"kind\":" + json(kind) + "}";
        }

        /** Where the method's name is written: its first occurrence after the return type. */
        static long namePosition(CompilationUnitTree unit, Tree method, String name, long start) {
            try {
                String src = unit.getSourceFile().getCharContent(true).toString();
                long from = start;
                if (method instanceof MethodTree mt && mt.getReturnType() != null) {
                    from = Math.max(from, trees.getSourcePositions().getEndPosition(unit, mt.getReturnType()));
                }
                int at = src.indexOf(name, (int) Math.max(0, from));
                return at >= 0 ? at : start;
            } catch (IOException e) {
                return start;
            }
        }

        static TypeElement outermost(TypeElement t) {
            Element e = t;
            while (e.getEnclosingElement() instanceof TypeElement outer) e = outer;
            return (TypeElement) e;
        }
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"').toString();
    }
}
