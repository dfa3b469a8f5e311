package io.hostpace.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java name a document quotes exists. The README, every page of docs/ and the simulator's
 * scenario READMEs are read line by line; each inline code span that is a Java name is checked,
 * and so is each {@code Type.member} or {@code io.hostpace.x} (and each camel-case word such as
 * {@code FleetClaims}) in a fenced block that is plain text, such as the README's drawing of a
 * request's path. Fenced Java is compiled elsewhere (ReadmeQuotesTest, ExamplesTest) and skipped.
 *
 * <p>A Java name is {@code Type}, {@code Type.member}, {@code Type#member}, {@code Type.member(...)},
 * {@code Outer.Inner}, a chain such as {@code Type.builder().addLimit(...)}, or a qualified
 * {@code io.hostpace.x.Type} or package {@code io.hostpace.x}; {@code Type} is an UpperCamel word
 * with a lower-case letter, so {@code GET}, {@code SCENARIO} and {@code PT30S} are not names, and
 * keys, options, properties and files ({@code hostpace.retries}, {@code --timeout},
 * {@code seed-003.json}) do not start with one. A span that starts with a lower-case word other
 * than {@code io.hostpace} or {@code java} is a variable's call or a key and is skipped.
 *
 * <p>A simple name is looked up among the classes under every module's {@code target/classes}
 * and {@code target/test-classes} (nested ones too), and among {@link #LIBRARY_TYPES}, the JDK
 * and library types the documents name; {@link #NOT_CHECKED} lists the few words that are
 * neither. A member is a method, field, enum constant, record component or nested type, of any
 * visibility, declared by the type or a supertype; after a method the next member is looked up
 * in its return type. A test class that cannot be loaded here (its module's test dependencies
 * are not on this class path) must have the member's name in its source. A call named without
 * its type ({@code forget(host)}, {@code engine.send()}) must be a method of one of those types,
 * and the {@code Type.member} names in a call's arguments are checked too.
 */
class DocumentedNamesTest {

  private static final Path ROOT = Path.of(Objects.requireNonNull(
      System.getProperty("hostpace.root"), "the system property hostpace.root (the project's root folder)"));

  /** The other libraries' types the documents name by their simple names, checked like ours. */
  private static final Map<String, String> LIBRARY_TYPES = Map.ofEntries(
      Map.entry("AutoCloseable", "java.lang.AutoCloseable"),
      Map.entry("System", "java.lang.System"),
      Map.entry("Error", "java.lang.Error"),
      Map.entry("IOException", "java.io.IOException"),
      Map.entry("IllegalStateException", "java.lang.IllegalStateException"),
      Map.entry("InterruptedIOException", "java.io.InterruptedIOException"),
      Map.entry("ConnectException", "java.net.ConnectException"),
      Map.entry("HttpClient", "java.net.http.HttpClient"),
      Map.entry("ProxySelector", "java.net.ProxySelector"),
      Map.entry("HttpResponse", "java.net.http.HttpResponse"),
      Map.entry("HttpTimeoutException", "java.net.http.HttpTimeoutException"),
      Map.entry("PushPromiseHandler", "java.net.http.HttpResponse$PushPromiseHandler"),
      Map.entry("Redirect", "java.net.http.HttpClient$Redirect"),
      Map.entry("Duration", "java.time.Duration"),
      Map.entry("Clock", "java.time.Clock"),
      Map.entry("ExecutionException", "java.util.concurrent.ExecutionException"),
      Map.entry("CompletableFuture", "java.util.concurrent.CompletableFuture"),
      Map.entry("CompletionException", "java.util.concurrent.CompletionException"),
      Map.entry("CancellationException", "java.util.concurrent.CancellationException"),
      Map.entry("Semaphore", "java.util.concurrent.Semaphore"),
      Map.entry("Interceptor", "okhttp3.Interceptor"),
      Map.entry("Call", "okhttp3.Call"),
      Map.entry("RequestBody", "okhttp3.RequestBody"),
      Map.entry("HttpEntity", "org.apache.hc.core5.http.HttpEntity"),
      Map.entry("HttpGet", "org.apache.hc.client5.http.classic.methods.HttpGet"),
      Map.entry("HttpUriRequestBase", "org.apache.hc.client5.http.classic.methods.HttpUriRequestBase"),
      Map.entry("HttpContext", "org.apache.hc.core5.http.protocol.HttpContext"),
      Map.entry("HttpClientBuilder", "org.apache.hc.client5.http.impl.classic.HttpClientBuilder"),
      Map.entry("NoHttpResponseException", "org.apache.hc.core5.http.NoHttpResponseException"),
      Map.entry("ConnectTimeoutException", "org.apache.hc.client5.http.ConnectTimeoutException"),
      Map.entry("RestTemplate", "org.springframework.web.client.RestTemplate"),
      Map.entry("RestClient", "org.springframework.web.client.RestClient"),
      Map.entry("ResourceAccessException", "org.springframework.web.client.ResourceAccessException"),
      Map.entry("HttpClientErrorException", "org.springframework.web.client.HttpClientErrorException"),
      Map.entry("HttpComponentsClientHttpRequestFactory",
          "org.springframework.http.client.HttpComponentsClientHttpRequestFactory"),
      Map.entry("WebClient", "org.springframework.web.reactive.function.client.WebClient"),
      Map.entry("WebClientResponseException",
          "org.springframework.web.reactive.function.client.WebClientResponseException"),
      Map.entry("Mono", "reactor.core.publisher.Mono"),
      Map.entry("List", "java.util.List"),
      Map.entry("HttpAsyncClients", "org.apache.hc.client5.http.impl.async.HttpAsyncClients"),
      Map.entry("RetryTemplate", "org.springframework.core.retry.RetryTemplate"),
      Map.entry("BackOffHandler", "org.springframework.kafka.listener.BackOffHandler"),
      Map.entry("DefaultErrorHandler", "org.springframework.kafka.listener.DefaultErrorHandler"),
      Map.entry("BatchListenerFailedException", "org.springframework.kafka.listener.BatchListenerFailedException"),
      Map.entry("FallbackBatchErrorHandler", "org.springframework.kafka.listener.FallbackBatchErrorHandler"),
      Map.entry("Context", "org.apache.jena.sparql.util.Context"),
      Map.entry("RDFConnection", "org.apache.jena.rdfconnection.RDFConnection"),
      Map.entry("QueryExecution", "org.apache.jena.query.QueryExecution"),
      Map.entry("QueryExecutionHTTP", "org.apache.jena.sparql.exec.http.QueryExecutionHTTP"),
      Map.entry("QueryExecHTTP", "org.apache.jena.sparql.exec.http.QueryExecHTTP"),
      Map.entry("QueryExceptionHTTP", "org.apache.jena.sparql.engine.http.QueryExceptionHTTP"),
      Map.entry("RegistryHttpClient", "org.apache.jena.http.RegistryHttpClient"),
      Map.entry("GuardedBy", "com.google.errorprone.annotations.concurrent.GuardedBy"),
      Map.entry("NullMarked", "org.jspecify.annotations.NullMarked"),
      Map.entry("Order", "org.springframework.core.annotation.Order"),
      Map.entry("RedisClient", "io.lettuce.core.RedisClient"),
      Map.entry("RedisClusterClient", "io.lettuce.core.cluster.RedisClusterClient"),
      Map.entry("RedisConnectionException", "io.lettuce.core.RedisConnectionException"),
      Map.entry("RedisCommandExecutionException", "io.lettuce.core.RedisCommandExecutionException"));

  /**
   * Words that look like types and are not Java names of ours or of a library on this class path:
   * HTTP header names, and types of libraries the documents compare us with.
   */
  private static final Set<String> NOT_CHECKED = Set.of(
      "Authorization", "Cookie", "Date", "RateLimit", "Trailer", "Upgrade", "Location", // HTTP headers
      "AtomicRateLimiter", // Resilience4j, named in the README's comparison
      "PrometheusMeterRegistry", // Micrometer's, which the command line's proxy binds and this module does not have
      // Spring Boot's, which the starter compiles against and this module does not have
      "RestTemplateBuilder", "RestTemplateCustomizer", "RestClientCustomizer", "WebClientCustomizer");

  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)\\s*([\\w-]*)");
  private static final Pattern SPAN = Pattern.compile("`([^`]+)`");
  private static final Pattern NAME = Pattern.compile(
      "[A-Za-z_$][\\w$]*(?:\\(\\))?(?:[.#][A-Za-z_$][\\w$]*(?:\\(\\))?)*");
  /** In plain text: {@code Type.member}, {@code io.hostpace.x}, or a word of two humps. */
  private static final Pattern TEXT_NAME = Pattern.compile(
      "(?<![\\w.$/-])(?:io\\.hostpace(?:\\.\\w+)*|[A-Z][a-z]\\w*(?:\\.[A-Za-z_]\\w*)+"
          + "|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)(?![\\w$-]|\\.\\w)");
  /** Outside its strings, a hyphenated word or an apostrophe: English, not Java. */
  private static final Pattern PROSE_ARGUMENTS = Pattern.compile("[A-Za-z]-[A-Za-z]|'");
  private static final Pattern ARGUMENT_NAME = Pattern.compile(
      "(?<![\\w.$])[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:\\.[A-Za-z_]\\w*)+");
  private static final Pattern TYPE = Pattern.compile("[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*");

  /** Our classes by simple name (nested ones too), as binary names. */
  private final Map<String, List<String>> ours = new HashMap<>();
  private final Set<String> packages = new LinkedHashSet<>();
  private final List<String> missing = new ArrayList<>();
  private final Set<String> absentLibraryTypes = new LinkedHashSet<>();
  private final Set<String> methodNames = new HashSet<>();
  private ClassLoader loader;

  @Test
  void I8_everyJavaNameTheDocumentsQuoteExists() throws IOException {
    List<URL> folders = new ArrayList<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      // Every module this one depends on, which the build has finished before this test runs; not
      // the benchmarks, which it does not depend on, so that a parallel build may still be writing
      // their classes (the documents read here name none of them).
      for (Path module : modules.filter(m -> m.getFileName().toString().startsWith("hostpace-")
          && !m.getFileName().toString().equals("hostpace-bench")).sorted().toList()) {
        index(module.resolve("target/classes"), folders);
        index(module.resolve("target/test-classes"), folders);
      }
    }
    assertThat(ours).as("our classes, from the modules' target folders").containsKeys("Hostpace", "PacedHttpClient");
    loader = new URLClassLoader(folders.toArray(URL[]::new), getClass().getClassLoader());

    List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(f -> f.getFileName().toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    try (Stream<Path> files = Files.walk(ROOT.resolve("hostpace-simulator/scenarios"))) {
      files.filter(f -> f.getFileName().toString().equals("README.md")).sorted().forEach(documents::add);
    }
    int checked = 0;
    for (Path document : documents) {
      checked += check(document);
    }
    assertThat(checked).as("names checked").isGreaterThan(100);
    assertThat(absentLibraryTypes).as("LIBRARY_TYPES not on this module's test class path").isEmpty();
    assertThat(missing).as("names the documents quote that do not exist").isEmpty();
  }

  private void index(Path folder, List<URL> folders) throws IOException {
    if (!Files.isDirectory(folder)) {
      return;
    }
    folders.add(url(folder));
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        String binary = folder.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
        binary = binary.substring(0, binary.length() - ".class".length());
        int dot = binary.lastIndexOf('.');
        String simple = binary.substring(Math.max(binary.lastIndexOf('$'), dot) + 1);
        if (simple.equals("module-info") || simple.equals("package-info") || !Character.isLetter(simple.charAt(0))) {
          continue; // not a type, or an anonymous or local class
        }
        packages.add(binary.substring(0, dot));
        ours.computeIfAbsent(simple, s -> new ArrayList<>()).add(binary);
      }
    }
  }

  /** Checks one document, adding what is missing; returns how many names it checked. */
  private int check(Path document) throws IOException {
    String where = ROOT.relativize(document).toString();
    List<String> lines = Files.readAllLines(document, StandardCharsets.UTF_8);
    int checked = 0;
    String fence = null;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher opening = FENCE.matcher(line);
      if (opening.find()) {
        fence = fence == null ? opening.group(2) : null;
        continue;
      }
      List<String> names = new ArrayList<>();
      if (fence == null) {
        Matcher span = SPAN.matcher(line);
        while (span.find()) {
          names.add(span.group(1));
        }
      } else if (fence.isEmpty() || fence.equals("text")) {
        Matcher name = TEXT_NAME.matcher(line);
        while (name.find()) {
          names.add(name.group());
        }
      }
      for (String name : List.copyOf(names)) {
        names.addAll(argumentNames(name));
      }
      for (String name : names) {
        Boolean exists = exists(name.strip());
        if (exists != null) {
          checked++;
          if (!exists) {
            missing.add(where + ":" + (i + 1) + ": " + name);
          }
        }
      }
    }
    return checked;
  }

  /** Whether the name exists, or null if it is not a Java name of the kinds this test checks. */
  private Boolean exists(String quoted) {
    if (PROSE_ARGUMENTS.matcher(quoted.replaceAll("\"[^\"]*\"", "\"\"")).find()) {
      return null; // a formula in words, as in `max(Retry-After, the back-off's own delay)`
    }
    String name = withoutArguments(quoted).replace(".super.", ".").replaceFirst("^@", "");
    if (!NAME.matcher(name).matches()) {
      return null;
    }
    List<String> segments = List.of(name.replace("()", "").split("[.#]"));
    String first = segments.get(0);
    if (first.equals("io") || first.equals("java")) {
      return qualifiedExists(segments);
    }
    if (Character.isLowerCase(first.charAt(0)) && name.endsWith("()")) {
      // a call without its type, as in `forget(host)` or `engine.send()`: some type has it
      return methodNames().contains(segments.get(segments.size() - 1));
    }
    if (!TYPE.matcher(first).matches() || NOT_CHECKED.contains(first)) {
      return null;
    }
    Set<Class<?>> types = new LinkedHashSet<>();
    for (String binary : ours.getOrDefault(first, List.of())) {
      try {
        types.add(Class.forName(binary, false, loader));
      } catch (ClassNotFoundException | LinkageError e) {
        // a test class whose own test dependencies are not on this class path: its source says
        if (segments.size() == 1 || mentions(binary, segments.get(1))) {
          return true;
        }
      }
    }
    String library = LIBRARY_TYPES.get(first);
    if (library != null) {
      try {
        types.add(Class.forName(library, false, loader));
      } catch (ClassNotFoundException | LinkageError e) {
        absentLibraryTypes.add(library);
        return null;
      }
    }
    return !types.isEmpty() && membersExist(types, segments.subList(1, segments.size()));
  }

  /** {@code io.hostpace.x}, {@code io.hostpace.x.Type.member}, {@code java.x.Type}. */
  private Boolean qualifiedExists(List<String> segments) {
    int type = 0;
    while (type < segments.size() && !Character.isUpperCase(segments.get(type).charAt(0))) {
      type++;
    }
    String pkg = String.join(".", segments.subList(0, type));
    if (type == segments.size()) {
      return segments.get(0).equals("io") ? packages.contains(pkg) : null;
    }
    try {
      Class<?> found = Class.forName(pkg + "." + segments.get(type), false, loader);
      return membersExist(Set.of(found), segments.subList(type + 1, segments.size()));
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** Whether each member exists in what the one before it gives, from the types. */
  private static boolean membersExist(Set<Class<?>> types, List<String> members) {
    Set<Class<?>> current = types;
    for (String member : members) {
      Set<Class<?>> next = new LinkedHashSet<>();
      boolean found = false;
      boolean unknown = false;
      for (Class<?> type : current) {
        try {
          found |= declares(type, member, next);
        } catch (LinkageError e) {
          // A test class whose own test dependencies are not on this class path: its source says.
          found |= mentions(outermost(type).getName(), member);
          unknown = true;
        }
      }
      if (!found) {
        return false;
      }
      if (unknown || next.contains(Object.class) || next.stream().anyMatch(Class::isPrimitive)) {
        return true;
      }
      current = next;
    }
    return true;
  }

  /** Whether the type or a supertype declares the member; adds what the member gives to next. */
  private static boolean declares(Class<?> type, String member, Set<Class<?>> next) {
    boolean found = false;
    for (Class<?> c : supertypes(type)) {
      for (Class<?> nested : c.getDeclaredClasses()) {
        if (nested.getSimpleName().equals(member)) {
          found = true;
          next.add(nested);
        }
      }
      for (Method method : c.getDeclaredMethods()) {
        if (method.getName().equals(member)) {
          found = true;
          next.add(method.getReturnType());
        }
      }
      for (Field field : c.getDeclaredFields()) {
        if (field.getName().equals(member)) {
          found = true;
          next.add(field.getType());
        }
      }
    }
    return found;
  }

  private static Class<?> outermost(Class<?> type) {
    Class<?> outer = type;
    while (outer.getEnclosingClass() != null) {
      outer = outer.getEnclosingClass();
    }
    return outer;
  }

  /** Whether the source of the class (its outermost class's file) has the member's name as a word. */
  private static boolean mentions(String binary, String member) {
    String path = binary.replaceFirst("\\$.*", "").replace('.', '/') + ".java";
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path module : modules.toList()) {
        for (String set : List.of("src/main/java/", "src/test/java/")) {
          Path source = module.resolve(set + path);
          if (Files.isRegularFile(source)
              && Pattern.compile("\\b" + Pattern.quote(member) + "\\b").matcher(Files.readString(source)).find()) {
            return true;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return false;
  }

  /** The type, its superclasses and every interface they implement. */
  private static Set<Class<?>> supertypes(Class<?> type) {
    Set<Class<?>> all = new LinkedHashSet<>();
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(type));
    while (!todo.isEmpty()) {
      Class<?> c = todo.pop();
      if (all.add(c)) {
        if (c.getSuperclass() != null) {
          todo.push(c.getSuperclass());
        }
        todo.addAll(List.of(c.getInterfaces()));
      }
    }
    return all;
  }

  /** The {@code Type.member} names in the arguments of a call, as in {@code limit("a", Limits.inFlight(4))}. */
  private static List<String> argumentNames(String quoted) {
    StringBuilder arguments = new StringBuilder();
    int depth = 0;
    for (char c : quoted.toCharArray()) {
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      arguments.append(depth > 0 && c != '(' ? c : ' ');
    }
    List<String> names = new ArrayList<>();
    Matcher name = ARGUMENT_NAME.matcher(arguments);
    while (name.find()) {
      names.add(name.group());
    }
    return names;
  }

  /** The names of the methods of our types and of {@link #LIBRARY_TYPES} and their nested types. */
  private Set<String> methodNames() {
    if (methodNames.isEmpty()) {
      List<String> types = new ArrayList<>(LIBRARY_TYPES.values());
      ours.values().forEach(types::addAll);
      for (String binary : types) {
        try {
          Class<?> type = Class.forName(binary, false, loader);
          for (Class<?> c : supertypes(type)) {
            Stream.of(c.getDeclaredMethods()).map(Method::getName).forEach(methodNames::add);
            for (Class<?> nested : c.getDeclaredClasses()) {
              Stream.of(nested.getDeclaredMethods()).map(Method::getName).forEach(methodNames::add);
            }
          }
        } catch (ClassNotFoundException | LinkageError e) {
          // a test class whose own test dependencies are not here, or a library type reported above
        }
      }
    }
    return methodNames;
  }

  /** The name with what stands between each outermost pair of parentheses removed. */
  private static String withoutArguments(String name) {
    StringBuilder out = new StringBuilder();
    int depth = 0;
    for (char c : name.toCharArray()) {
      if (c == ')') {
        depth--;
      }
      if (depth == 0) {
        out.append(c);
      }
      if (c == '(') {
        depth++;
      }
    }
    return depth == 0 ? out.toString() : name;
  }

  private static URL url(Path folder) {
    try {
      return folder.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalStateException("the folder " + folder + " has no URL", e);
    }
  }
}
