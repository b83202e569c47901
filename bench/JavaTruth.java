// Ground truth for bench/codegraph_accuracy.py --java: javac itself (com.sun.source, JavacTask)
// parses and attributes the repository's .java files (the paths come on stdin, one a line,
// relative to the working directory) and prints, tab-separated:
//
//   D  path  start  end  kind  name                      every class/interface/enum/record/
//                                                        annotation, method and constructor
//   C  path  line  nameLine  name  tpath  tstart  tend   every method call or `new` whose
//                                                        target javac resolves to a declaration
//                                                        in one of those files
//   X  path  line  nameLine  name                         a call javac resolves outside them
//
// Lines are 1-based; a declaration spans start..end (modifiers and annotations included);
// nameLine is the line of the called name (a chain broken over lines puts it below `line`).
// Compiled and run at bench time into a temporary directory; nothing here is committed output.

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public final class JavaTruth {
    private static Trees trees;
    private static SourcePositions positions;
    private static Path cwd;
    private static final PrintWriter OUT =
            new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8));

    public static void main(String[] args) throws Exception {
        List<File> files = new ArrayList<>();
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (!line.isBlank()) files.add(new File(line.trim()));
        }
        cwd = Path.of("").toAbsolutePath();
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager fm =
                compiler.getStandardFileManager(diags, null, StandardCharsets.UTF_8);
        List<String> options = List.of("-proc:none", "-implicit:none", "-Xmaxerrs", "100000");
        JavacTask task = (JavacTask) compiler.getTask(
                null, fm, diags, options, null, fm.getJavaFileObjectsFromFiles(files));
        trees = Trees.instance(task);
        positions = trees.getSourcePositions();
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        for (CompilationUnitTree unit : units) {
            new Scanner(unit).scan(unit, null);
        }
        long errors = diags.getDiagnostics().stream()
                .filter(d -> d.getKind() == javax.tools.Diagnostic.Kind.ERROR).count();
        OUT.println("E\t" + errors);
        OUT.flush();
    }

    private static String rel(CompilationUnitTree unit) {
        return cwd.relativize(Path.of(unit.getSourceFile().toUri()).toAbsolutePath()).toString();
    }

    private static long line(CompilationUnitTree unit, long pos) {
        return unit.getLineMap().getLineNumber(pos);
    }

    private static final class Scanner extends TreePathScanner<Void, Void> {
        private final CompilationUnitTree unit;
        private final String path;

        Scanner(CompilationUnitTree unit) {
            this.unit = unit;
            this.path = rel(unit);
        }

        private void def(Tree tree, String kind, String name) {
            long start = positions.getStartPosition(unit, tree);
            long end = positions.getEndPosition(unit, tree);
            if (start < 0 || end < 0) return;
            OUT.println("D\t" + path + "\t" + line(unit, start) + "\t" + line(unit, end) + "\t"
                    + kind + "\t" + name);
        }

        @Override
        public Void visitClass(ClassTree tree, Void p) {
            if (!tree.getSimpleName().isEmpty()) {  // anonymous classes are not definitions
                def(tree, tree.getKind().toString().toLowerCase(), tree.getSimpleName().toString());
            }
            return super.visitClass(tree, p);
        }

        @Override
        public Void visitMethod(MethodTree tree, Void p) {
            String name = tree.getName().toString();
            boolean ctor = name.equals("<init>");
            if (ctor) {
                Tree owner = getCurrentPath().getParentPath().getLeaf();
                if (owner instanceof ClassTree) name = ((ClassTree) owner).getSimpleName().toString();
                long start = positions.getStartPosition(unit, tree);
                long end = positions.getEndPosition(unit, tree);
                // a default constructor javac adds has no text of its own: not a definition
                if (start < 0 || end <= start) return super.visitMethod(tree, p);
            }
            def(tree, ctor ? "constructor" : "method", name);
            return super.visitMethod(tree, p);
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree tree, Void p) {
            ExpressionTree select = tree.getMethodSelect();
            String name = select instanceof MemberSelectTree
                    ? ((MemberSelectTree) select).getIdentifier().toString()
                    : select instanceof IdentifierTree
                            ? ((IdentifierTree) select).getName().toString() : "";
            if (!name.isEmpty() && !name.equals("this") && !name.equals("super")) {
                long nameEnd = positions.getEndPosition(unit, select);
                site(tree, nameEnd < 0 ? -1 : nameEnd - name.length(), name);
            }
            return super.visitMethodInvocation(tree, p);
        }

        @Override
        public Void visitNewClass(NewClassTree tree, Void p) {
            // `new X() { ... }` is an anonymous class; an enum constant is a `new` javac adds
            if (tree.getClassBody() == null && written(tree, "new")) {
                String name = tree.getIdentifier().toString();
                int dot = name.lastIndexOf('.');
                name = name.substring(dot + 1).replaceAll("<.*", "");
                site(tree, positions.getStartPosition(unit, tree.getIdentifier()), name);
            }
            return super.visitNewClass(tree, p);
        }

        private boolean written(Tree tree, String word) {
            long start = positions.getStartPosition(unit, tree);
            try {
                CharSequence text = unit.getSourceFile().getCharContent(true);
                return start >= 0 && text.subSequence((int) start, (int) start + word.length())
                        .toString().equals(word);
            } catch (java.io.IOException | IndexOutOfBoundsException e) {
                return false;
            }
        }

        private void site(Tree tree, long namePos, String name) {
            long start = positions.getStartPosition(unit, tree);
            if (start < 0) return;
            Element target = trees.getElement(getCurrentPath());
            if (target == null || target.asType().getKind() == javax.lang.model.type.TypeKind.ERROR) {
                return;  // unresolved (a missing dependency): neither resolvable nor external
            }
            if (target.getKind() == ElementKind.CONSTRUCTOR && tree instanceof NewClassTree) {
                target = target.getEnclosingElement();  // `new X()` points at the class X
            }
            String where = path + "\t" + line(unit, start) + "\t"
                    + line(unit, namePos < 0 ? start : namePos) + "\t" + name;
            TreePath decl = trees.getPath(target);
            if (decl == null) {
                OUT.println("X\t" + where);
                return;
            }
            CompilationUnitTree tu = decl.getCompilationUnit();
            Tree leaf = decl.getLeaf();
            long ts = positions.getStartPosition(tu, leaf);
            long te = positions.getEndPosition(tu, leaf);
            if (ts < 0 || te < 0) return;
            OUT.println("C\t" + where + "\t" + rel(tu) + "\t" + line(tu, ts) + "\t" + line(tu, te));
        }
    }
}
