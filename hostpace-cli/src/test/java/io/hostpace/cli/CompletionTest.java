package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code hostpace completion}: a bash and zsh completion script of every command and its options. */
class CompletionTest {

  @Test
  void theScriptCompletesTheCommandsAndTheirOptions() {
    CommandRun completion = CommandRun.of("completion");
    String script = completion.out();

    assertThat(completion.status()).isZero();
    assertThat(script).startsWith("#!/usr/bin/env bash").contains("complete -F _complete_hostpace");
    assertThat(script).contains("ZSH_VERSION"); // the same script serves zsh, through bashcompinit
    // The commands, as the first word after hostpace.
    for (String command : new String[] {"fetch", "sparql", "demo", "simulate", "completion"}) {
      assertThat(script).containsPattern("local cmds\\d+=\\(" + command + "\\)");
    }
    // Options of fetch and of the options every command that sends shares.
    assertThat(script).contains("--max-rate").contains("--host").contains("--state").contains("--progress")
        .contains("--respect-robots")
        .contains("--query-file").contains("--endpoint");
  }

  @Test
  void itsHelpNamesItAsItIsRun() {
    CommandRun completion = CommandRun.of("completion", "--help");
    String help = completion.out();

    assertThat(completion.status()).isZero();
    assertThat(help).startsWith("Usage: hostpace completion ").doesNotContain("generate-completion");
  }
}
