package dev.replicapool.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.replicapool.cli.FlagParser.Rules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FlagParserTest {
  static FlagParser parser(Rules rules) {
    return FlagParser.of(rules, List.of("name", "port"), List.of("verbose"));
  }

  static Map<String, String> values(FlagParser parser, String... args) throws Exception {
    ParsedFlags parsed = parser.parse(args);
    assertThat(parsed.help()).isFalse();
    return parsed.values();
  }

  @ParameterizedTest
  @EnumSource(Rules.class)
  void readsBothSpellingsAndSwitches(Rules rules) throws Exception {
    assertThat(values(parser(rules), "--name", "k1", "--port=8080", "--verbose"))
        .isEqualTo(Map.of("name", "k1", "port", "8080", "verbose", "true"));
    assertThat(values(parser(rules))).isEmpty();
    assertThat(values(parser(rules), "--name=a=b")).containsEntry("name", "a=b");
  }

  @Test
  void unknownFlagIsNamed() {
    for (Rules rules : Rules.values()) {
      assertThatThrownBy(() -> parser(rules).parse(new String[] {"--nmae", "k1"}))
          .isInstanceOf(CommandLineException.class)
          .hasMessage("unknown flag --nmae");
      assertThatThrownBy(() -> parser(rules).parse(new String[] {"--nmae=k1"}))
          .hasMessage("unknown flag --nmae");
    }
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"--nmae"}))
        .hasMessage("unknown flag --nmae");
    assertThatThrownBy(() -> parser(Rules.LENIENT).parse(new String[] {"--nmae"}))
        .hasMessage("unknown flag --nmae");
    assertThatThrownBy(() -> parser(Rules.PAIRED).parse(new String[] {"--nmae"}))
        .as("PAIRED takes a flag's value before it checks the name")
        .hasMessage("--nmae needs a value");
  }

  @Test
  void strayArgument() {
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"extra"}))
        .hasMessage("unexpected argument 'extra' (flags look like --name value)");
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"--"}))
        .hasMessage("unexpected argument '--' (flags look like --name value)");
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"-n", "k1"}))
        .hasMessage("unexpected argument '-n' (flags look like --name value)");
    for (Rules rules : List.of(Rules.LENIENT, Rules.PAIRED)) {
      assertThatThrownBy(() -> parser(rules).parse(new String[] {"extra"}))
          .hasMessage("unexpected argument extra");
      assertThatThrownBy(() -> parser(rules).parse(new String[] {"--", "x"}))
          .hasMessage("unknown flag --");
    }
  }

  @Test
  void missingValue() {
    for (Rules rules : Rules.values()) {
      assertThatThrownBy(() -> parser(rules).parse(new String[] {"--name"}))
          .hasMessage("--name needs a value");
    }
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"--name", "--port", "1"}))
        .as("STRICT: the next flag is no value")
        .hasMessage("--name needs a value");
  }

  @Test
  void lenientRulesTakeTheNextWordWhateverItIs() throws Exception {
    for (Rules rules : List.of(Rules.LENIENT, Rules.PAIRED)) {
      assertThat(values(parser(rules), "--name", "--port", "--port", "1"))
          .isEqualTo(Map.of("name", "--port", "port", "1"));
    }
  }

  @Test
  void emptyValue() throws Exception {
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"--name="}))
        .hasMessage("--name needs a non-empty value");
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"--name", " "}))
        .hasMessage("--name needs a non-empty value");
    assertThat(values(parser(Rules.LENIENT), "--name=")).containsEntry("name", "");
    assertThat(values(parser(Rules.PAIRED), "--name", " ")).containsEntry("name", " ");
  }

  @Test
  void repeatedFlag() throws Exception {
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"--name=a", "--name", "b"}))
        .hasMessage("--name given more than once");
    assertThatThrownBy(() -> parser(Rules.STRICT).parse(new String[] {"--verbose", "--verbose"}))
        .hasMessage("--verbose given more than once");
    for (Rules rules : List.of(Rules.LENIENT, Rules.PAIRED)) {
      assertThat(values(parser(rules), "--name=a", "--name", "b")).containsEntry("name", "b");
    }
  }

  @ParameterizedTest
  @EnumSource(Rules.class)
  void switchWithValue(Rules rules) throws Exception {
    assertThatThrownBy(() -> parser(rules).parse(new String[] {"--verbose=yes"}))
        .hasMessage("--verbose takes no value");
    assertThat(values(parser(rules), "--verbose", "--name", "k1"))
        .as("a switch takes no word after it")
        .containsEntry("verbose", "true")
        .containsEntry("name", "k1");
  }

  @Test
  void helpWordWhereAFlagIsExpected() throws Exception {
    FlagParser parser = parser(Rules.LENIENT).withHelpWords("--help", "-h");
    assertThat(parser.parse(new String[] {"--name", "k1", "-h"}).help()).isTrue();
    assertThat(parser.parse(new String[] {"--help", "--bogus"}).help()).isTrue();
    assertThat(parser.parse(new String[] {"--help"}).values()).isEmpty();
    assertThat(values(parser, "--name", "--help"))
        .as("a value, not a request for help")
        .containsEntry("name", "--help");
    assertThatThrownBy(() -> parser.parse(new String[] {"--bogus", "x", "--help"}))
        .as("a mistake before the help word is still reported")
        .hasMessage("unknown flag --bogus");
    assertThatThrownBy(() -> parser(Rules.LENIENT).parse(new String[] {"--help"}))
        .as("without help words --help is a flag like any other")
        .hasMessage("unknown flag --help");
  }

  @Test
  void environmentFallback() throws Exception {
    FlagParser parser = parser(Rules.LENIENT).withEnvironment("REPLICAPOOL_");
    Map<String, String> env =
        Map.of("REPLICAPOOL_NAME", "from-env", "REPLICAPOOL_PORT", " ", "REPLICAPOOL_VERBOSE", "1");
    assertThat(parser.parse(new String[] {}, env).values())
        .as("blank variables are unset; switches have no environment form")
        .isEqualTo(Map.of("name", "from-env"));
    assertThat(parser(Rules.LENIENT).parse(new String[] {}, env).values())
        .as("no environment without a prefix")
        .isEmpty();
    assertThat(FlagParser.environmentName("REPLICAPOOL_", "token-file"))
        .isEqualTo("REPLICAPOOL_TOKEN_FILE");
  }

  @Test
  void flagBeatsEnvironment() throws Exception {
    Map<String, String> env = Map.of("REPLICAPOOL_NAME", "from-env", "REPLICAPOOL_PORT", "1");
    for (Rules rules : Rules.values()) {
      FlagParser parser = parser(rules).withEnvironment("REPLICAPOOL_");
      assertThat(parser.parse(new String[] {"--name", "from-flag"}, env).values())
          .as("%s: the flag wins and is no repeat of the variable", rules)
          .isEqualTo(Map.of("name", "from-flag", "port", "1"));
    }
  }

  @Test
  void strippedValues() throws Exception {
    FlagParser parser = parser(Rules.LENIENT).withEnvironment("REPLICAPOOL_").withStrippedValues();
    assertThat(
            parser
                .parse(new String[] {"--name", " k1\n"}, Map.of("REPLICAPOOL_PORT", " 80 "))
                .values())
        .isEqualTo(Map.of("name", "k1", "port", "80"));
    assertThat(values(parser(Rules.LENIENT), "--name", " k1 ")).containsEntry("name", " k1 ");
  }

  @Test
  void parsedFlagsCannotBeChanged() throws Exception {
    Map<String, String> values = values(parser(Rules.LENIENT), "--name", "k1");
    assertThatThrownBy(() -> values.put("port", "1"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
