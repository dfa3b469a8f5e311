package io.hostpace.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Every module the build publishes is fit to publish: the reactor's modules are read from the
 * parent POM, and each that does not skip deployment must have a name and a description of its
 * own, inherit the licence, developers, URL and SCM from the parent (or the BOM, which has no
 * parent, must carry them), ship jars with the licence and an {@code Automatic-Module-Name} that
 * is the module's root package, sources and Javadoc jars beside them, and be listed in the BOM;
 * the BOM lists nothing else. The jars are those this reactor built before this module: every
 * published module is a dependency of this one, which this test also asks, so that they are.
 */
class PublicationTest {

  private static final Path ROOT = Path.of(Objects.requireNonNull(
      System.getProperty("hostpace.root"), "the system property hostpace.root (the project's root folder)"));

  private final List<String> problems = new ArrayList<>();

  @Test
  void I8_everyPublishedModuleHasItsLicenceMetadataJarsModuleNameAndBomEntry() throws Exception {
    Element parent = read(ROOT.resolve("pom.xml"));
    String version = text(parent, "version");
    String license = Files.readString(ROOT.resolve("LICENSE"), StandardCharsets.UTF_8);
    expect(license.startsWith("MIT License"), "LICENSE is not the MIT licence");
    checkCentralMetadata("hostpace-parent", parent);

    Element bom = read(ROOT.resolve("hostpace-bom/pom.xml"));
    expect(child(bom, "parent") == null, "hostpace-bom has a parent, whose dependencyManagement it would export");
    expect(version.equals(text(bom, "version")), "hostpace-bom's version is not the parent's, " + version);
    checkCentralMetadata("hostpace-bom", bom);
    checkModuleText("hostpace-bom", bom);
    Set<String> listed = bomEntries(bom);

    Set<String> dependedOn = new TreeSet<>();
    for (Element dependency : children(child(read(ROOT.resolve("hostpace-examples/pom.xml")), "dependencies"))) {
      dependedOn.add(text(dependency, "artifactId"));
    }

    for (Element module : children(child(parent, "modules"))) {
      String name = module.getTextContent().trim();
      Element pom = read(ROOT.resolve(name).resolve("pom.xml"));
      String artifactId = text(pom, "artifactId");
      boolean published = !"true".equals(property(pom, "maven.deploy.skip"));
      if (!published) {
        expect(!listed.contains(artifactId), "hostpace-bom lists " + artifactId + ", which is not published");
        continue;
      }
      if ("pom".equals(text(pom, "packaging"))) {
        continue;   // the BOM, checked above
      }
      checkModuleText(artifactId, pom);
      expect(listed.contains(artifactId), "hostpace-bom does not list the published module " + artifactId);
      expect(dependedOn.contains(artifactId),
          "hostpace-examples does not depend on the published module " + artifactId
              + " (at test scope will do), so its jars may not be built before PublicationTest reads them");
      checkJars(ROOT.resolve(name), artifactId, version, property(pom, "module.name"), license);
    }
    assertThat(problems).as("what a published module lacks").isEmpty();
  }

  /** Name, description, URL, licence, developers and SCM, as Maven Central requires. */
  private void checkCentralMetadata(String artifactId, Element pom) {
    checkModuleText(artifactId, pom);
    expect(!text(pom, "url").isEmpty(), artifactId + " has no <url>");
    Element licenses = child(pom, "licenses");
    expect(licenses != null && children(licenses).stream().anyMatch(l -> text(l, "name").equals("MIT License")),
        artifactId + " has no <licenses> with the MIT License");
    Element developers = child(pom, "developers");
    expect(developers != null && children(developers).stream().anyMatch(d -> !text(d, "name").isEmpty()),
        artifactId + " has no <developers> with a name");
    Element scm = child(pom, "scm");
    expect(scm != null && !text(scm, "url").isEmpty() && !text(scm, "connection").isEmpty(),
        artifactId + " has no <scm> with a url and a connection");
  }

  private void checkModuleText(String artifactId, Element pom) {
    expect(!text(pom, "name").isEmpty(), artifactId + " has no <name>");
    expect(!text(pom, "description").isEmpty(), artifactId + " has no <description>");
  }

  /** Every dependency the BOM manages, which must be a Hostpace module at the project's version. */
  private Set<String> bomEntries(Element bom) {
    Set<String> listed = new TreeSet<>();
    Element management = child(bom, "dependencyManagement");
    for (Element dependency : children(management == null ? null : child(management, "dependencies"))) {
      String artifactId = text(dependency, "artifactId");
      expect(text(dependency, "groupId").equals("io.hostpace") && text(dependency, "version").equals("${project.version}"),
          "hostpace-bom pins " + text(dependency, "groupId") + ":" + artifactId + ":" + text(dependency, "version")
              + ", not a Hostpace module at ${project.version}");
      listed.add(artifactId);
    }
    return listed;
  }

  private void checkJars(Path module, String artifactId, String version, String moduleName, String license)
      throws IOException {
    Path target = module.resolve("target");
    String base = artifactId + "-" + version;
    Set<String> packages = packages(module.resolve("src/main/java"));
    expect(packages.contains(moduleName) && packages.stream().allMatch(p -> p.startsWith(moduleName)),
        artifactId + "'s module.name '" + moduleName + "' is not the root package of its sources " + packages);
    Path jar = target.resolve(base + ".jar");
    if (!expect(Files.isRegularFile(jar), artifactId + " has no jar " + jar)) {
      return;
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      String declared = file.getManifest() == null ? null
          : file.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
      expect(moduleName.equals(declared),
          artifactId + "'s jar says Automatic-Module-Name " + declared + ", not " + moduleName);
      var entry = file.getJarEntry("META-INF/LICENSE");
      expect(entry != null && new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8).equals(license),
          artifactId + "'s jar has no META-INF/LICENSE equal to the project's");
    }
    expect(holds(target.resolve(base + "-sources.jar"), ".java"), artifactId + " has no sources jar with sources");
    expect(holds(target.resolve(base + "-javadoc.jar"), "index.html"), artifactId + " has no Javadoc jar with an index.html");
  }

  private static boolean holds(Path jar, String suffix) throws IOException {
    if (!Files.isRegularFile(jar)) {
      return false;
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      return file.stream().anyMatch(e -> e.getName().endsWith(suffix));
    }
  }

  /** The packages that hold Java sources (module-info aside) under {@code sources}. */
  private static Set<String> packages(Path sources) throws IOException {
    Set<String> packages = new TreeSet<>();
    if (Files.isDirectory(sources)) {
      try (Stream<Path> files = Files.walk(sources)) {
        files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("module-info.java"))
            .forEach(f -> packages.add(sources.relativize(f.getParent()).toString().replace('/', '.')));
      }
    }
    return packages;
  }

  private boolean expect(boolean holds, String problem) {
    if (!holds) {
      problems.add(problem);
    }
    return holds;
  }

  private static String property(Element pom, String name) {
    Element properties = child(pom, "properties");
    return properties == null ? "" : text(properties, name);
  }

  private static Element read(Path pom) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      Document document = factory.newDocumentBuilder().parse(pom.toFile());
      return document.getDocumentElement();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + pom + ": " + e.getMessage(), e);
    }
  }

  private static Element child(Element parent, String name) {
    for (Element child : children(parent)) {
      if (child.getTagName().equals(name)) {
        return child;
      }
    }
    return null;
  }

  private static List<Element> children(Element parent) {
    List<Element> elements = new ArrayList<>();
    if (parent != null) {
      NodeList nodes = parent.getChildNodes();
      for (int i = 0; i < nodes.getLength(); i++) {
        if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE) {
          elements.add((Element) nodes.item(i));
        }
      }
    }
    return elements;
  }

  /** The trimmed text of {@code parent}'s child {@code name}, or "" when there is none. */
  private static String text(Element parent, String name) {
    Element child = child(parent, name);
    return child == null ? "" : child.getTextContent().trim();
  }
}
