package dev.replicapool.cli;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@code --name value} and {@code --name=value} command lines, the same way for every main of
 * the project (the operator, the data plane, the registrar and through it the sample replica, the
 * local run): flags that take a value, switches that do not, optional words that ask for the usage
 * text, and optionally an environment fallback in which {@code --some-flag} is {@code
 * <PREFIX>SOME_FLAG} and a flag on the command line wins over the environment.
 *
 * <p>The rules: a value is stripped of surrounding white space and may not be blank; the word after
 * a valued flag is no value when it starts with {@code --} (so a forgotten value is reported, not
 * swallowed); anything that is not a flag is a stray argument; a flag given twice is refused,
 * unless the parser lets a later one win ({@link #withLaterRepeatWinning}). Every mistake is a
 * {@link CommandLineException} naming the flag. A parser is an immutable value; the {@code with...}
 * methods return a new one.
 */
public record FlagParser(
    Set<String> valued,
    Set<String> switches,
    Set<String> helpWords,
    String environmentPrefix,
    boolean laterRepeatWins) {

  /**
   * A parser with every setting given; {@code environmentPrefix} null means no environment. {@link
   * #of} and the {@code with...} methods are the usual way to one.
   */
  public FlagParser {
    valued = Set.copyOf(valued);
    switches = Set.copyOf(switches);
    helpWords = Set.copyOf(helpWords);
  }

  /**
   * A parser of the flags {@code valued} (each takes a value) and {@code switches} (none takes
   * one), both named without the leading dashes.
   */
  public static FlagParser of(Collection<String> valued, Collection<String> switches) {
    return new FlagParser(Set.copyOf(valued), Set.copyOf(switches), Set.of(), null, false);
  }

  /**
   * This parser, where any of {@code words} standing where a flag is expected (such as {@code
   * --help}, {@code -h}) ends the parse with {@link ParsedFlags#help()}; a mistake before it is
   * still reported.
   */
  public FlagParser withHelpWords(String... words) {
    return new FlagParser(valued, switches, Set.of(words), environmentPrefix, laterRepeatWins);
  }

  /**
   * This parser, where a valued flag absent from the command line comes from the environment
   * variable {@link #environmentName}; blank variables count as unset. Switches have no environment
   * form.
   */
  public FlagParser withEnvironment(String prefix) {
    return new FlagParser(valued, switches, helpWords, prefix, laterRepeatWins);
  }

  /**
   * This parser, where a flag given again replaces the earlier value, as Kubernetes components read
   * theirs: a Deployment's args can be overridden by appending a flag (a kustomize patch, a test
   * that runs the rendered args with its own token).
   */
  public FlagParser withLaterRepeatWinning() {
    return new FlagParser(valued, switches, helpWords, environmentPrefix, true);
  }

  /**
   * The environment variable of {@code flag}: {@code --token-file} is {@code PREFIX_TOKEN_FILE}.
   */
  public static String environmentName(String prefix, String flag) {
    return prefix + flag.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** Parses {@code args} without an environment. */
  public ParsedFlags parse(String[] args) throws CommandLineException {
    return parse(args, Map.of());
  }

  /**
   * Parses {@code args}, then fills the valued flags they leave out from {@code env} when this
   * parser has an environment prefix.
   */
  public ParsedFlags parse(String[] args, Map<String, String> env) throws CommandLineException {
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (helpWords.contains(args[i])) {
        return ParsedFlags.HELP;
      }
      i = readFlag(args, i, given);
    }
    Map<String, String> values = fromEnvironment(env);
    values.putAll(given);
    return new ParsedFlags(values, false);
  }

  /** Reads the flag at {@code args[i]} (and its value) into {@code given}; the last index read. */
  private int readFlag(String[] args, int i, Map<String, String> given)
      throws CommandLineException {
    String arg = args[i];
    if (!arg.startsWith("--") || arg.length() == 2) {
      throw new CommandLineException(
          "unexpected argument '" + arg + "' (flags look like --name value)");
    }
    String name = arg.substring(2);
    String value = null;
    int eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.substring(eq + 1);
      name = name.substring(0, eq);
    }
    if (switches.contains(name)) {
      if (value != null) {
        throw new CommandLineException("--" + name + " takes no value");
      }
      value = "true";
    } else if (valued.contains(name)) {
      if (value == null) {
        value = nextValue(args, i++, name);
      }
      value = checked(name, value);
    } else {
      throw new CommandLineException("unknown flag --" + name);
    }
    if (given.put(name, value) != null && !laterRepeatWins) {
      throw new CommandLineException("--" + name + " given more than once");
    }
    return i;
  }

  /** The word after the valued flag at {@code args[i]}, which must be there and be no flag. */
  private static String nextValue(String[] args, int i, String name) throws CommandLineException {
    if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
      throw new CommandLineException("--" + name + " needs a value");
    }
    return args[i + 1];
  }

  private static String checked(String name, String value) throws CommandLineException {
    String stripped = value.strip();
    if (stripped.isEmpty()) {
      throw new CommandLineException("--" + name + " needs a non-empty value");
    }
    return stripped;
  }

  /** The valued flags set in {@code env}; none without an environment prefix. */
  private Map<String, String> fromEnvironment(Map<String, String> env) {
    Map<String, String> values = new LinkedHashMap<>();
    if (environmentPrefix == null) {
      return values;
    }
    for (String flag : valued) {
      String value = env.get(environmentName(environmentPrefix, flag));
      if (value != null && !value.isBlank()) {
        values.put(flag, value.strip());
      }
    }
    return values;
  }
}
