package dev.replicapool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagParserTest {
  static final FlagParser PARSER = FlagParser.of(List.of("name", "port"), List.of("verbose"));

  static Map<String, String> values(FlagParser parser, String... args) throws Exception {
    ParsedFlags parsed = parser.parse(args);
    assertThat(parsed.help()).isFalse();
    return parsed.values();
  }

  @Test
  void readsBothSpellingsAndSwitches() throws Exception {
    assertThat(values(PARSER, "--name", "k1", "--port=8080", "--verbose"))
        .isEqualTo(Map.of("name", "k1", "port", "8080", "verbose", "true"));
    assertThat(values(PARSER)).isEmpty();
    assertThat(values(PARSER, "--name=a=b")).containsEntry("name", "a=b");
  }

  @Test
  void unknownFlagIsNamed() {
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--nmae", "k1"}))
        .isInstanceOf(CommandLineException.class)
        .hasMessage("unknown flag --nmae");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--nmae=k1"}))
        .hasMessage("unknown flag --nmae");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--nmae"}))
        .hasMessage("unknown flag --nmae");
  }

  @Test
  void strayArgument() {
    assertThatThrownBy(() -> PARSER.parse(new String[] {"extra"}))
        .hasMessage("unexpected argument 'extra' (flags look like --name value)");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--"}))
        .hasMessage("unexpected argument '--' (flags look like --name value)");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"-n", "k1"}))
        .hasMessage("unexpected argument '-n' (flags look like --name value)");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--name", "k1", "k2"}))
        .as("a second word after a valued flag")
        .hasMessage("unexpected argument 'k2' (flags look like --name value)");
  }

  @Test
  void missingValue() {
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--name"}))
        .hasMessage("--name needs a value");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--name", "--port", "1"}))
        .as("the next flag is no value")
        .hasMessage("--name needs a value");
  }

  @Test
  void emptyValue() {
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--name="}))
        .hasMessage("--name needs a non-empty value");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--name", " "}))
        .hasMessage("--name needs a non-empty value");
  }

  @Test
  void valuesAreStripped() throws Exception {
    FlagParser parser = PARSER.withEnvironment("REPLICAPOOL_");
    assertThat(
            parser
                .parse(new String[] {"--name", " k1\n"}, Map.of("REPLICAPOOL_PORT", " 80 "))
                .values())
        .isEqualTo(Map.of("name", "k1", "port", "80"));
  }

  @Test
  void repeatedFlag() {
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--name=a", "--name", "b"}))
        .hasMessage("--name given more than once");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--verbose", "--verbose"}))
        .hasMessage("--verbose given more than once");
  }

  @Test
  void aLaterRepeatWinsWhereTheParserSaysSo() throws Exception {
    FlagParser parser = PARSER.withLaterRepeatWinning().withEnvironment("REPLICAPOOL_");
    assertThat(values(parser, "--name=a", "--port", "1", "--name", "b"))
        .isEqualTo(Map.of("name", "b", "port", "1"));
    assertThat(values(parser, "--verbose", "--verbose")).containsEntry("verbose", "true");
    assertThatThrownBy(() -> parser.parse(new String[] {"--name=a", "--name"}))
        .as("the repeat is still read by the rules")
        .hasMessage("--name needs a value");
  }

  @Test
  void switchWithValue() throws Exception {
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--verbose=yes"}))
        .hasMessage("--verbose takes no value");
    assertThat(values(PARSER, "--verbose", "--name", "k1"))
        .as("a switch takes no word after it")
        .containsEntry("verbose", "true")
        .containsEntry("name", "k1");
  }

  @Test
  void helpWordWhereAFlagIsExpected() throws Exception {
    FlagParser parser = PARSER.withHelpWords("--help", "-h");
    assertThat(parser.parse(new String[] {"--name", "k1", "-h"}).help()).isTrue();
    assertThat(parser.parse(new String[] {"--help", "--bogus"}).help()).isTrue();
    assertThat(parser.parse(new String[] {"--help"}).values()).isEmpty();
    assertThatThrownBy(() -> parser.parse(new String[] {"--name", "--help"}))
        .as("a help word is no value either")
        .hasMessage("--name needs a value");
    assertThatThrownBy(() -> parser.parse(new String[] {"--bogus", "x", "--help"}))
        .as("a mistake before the help word is still reported")
        .hasMessage("unknown flag --bogus");
    assertThatThrownBy(() -> PARSER.parse(new String[] {"--help"}))
        .as("without help words --help is a flag like any other")
        .hasMessage("unknown flag --help");
  }

  @Test
  void environmentFallback() throws Exception {
    FlagParser parser = PARSER.withEnvironment("REPLICAPOOL_");
    Map<String, String> env =
        Map.of("REPLICAPOOL_NAME", "from-env", "REPLICAPOOL_PORT", " ", "REPLICAPOOL_VERBOSE", "1");
    assertThat(parser.parse(new String[] {}, env).values())
        .as("blank variables are unset; switches have no environment form")
        .isEqualTo(Map.of("name", "from-env"));
    assertThat(PARSER.parse(new String[] {}, env).values())
        .as("no environment without a prefix")
        .isEmpty();
    assertThat(FlagParser.environmentName("REPLICAPOOL_", "token-file"))
        .isEqualTo("REPLICAPOOL_TOKEN_FILE");
  }

  @Test
  void flagBeatsEnvironment() throws Exception {
    Map<String, String> env = Map.of("REPLICAPOOL_NAME", "from-env", "REPLICAPOOL_PORT", "1");
    FlagParser parser = PARSER.withEnvironment("REPLICAPOOL_");
    assertThat(parser.parse(new String[] {"--name", "from-flag"}, env).values())
        .as("the flag wins and is no repeat of the variable")
        .isEqualTo(Map.of("name", "from-flag", "port", "1"));
  }

  @Test
  void parsedFlagsCannotBeChanged() throws Exception {
    Map<String, String> values = values(PARSER, "--name", "k1");
    assertThatThrownBy(() -> values.put("port", "1"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
