package io.brook.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Option;

/** {@code --format text|json|yaml}, on every command that prints a result. */
final class FormatOption {

  @Option(
      names = "--format",
      paramLabel = "text|json|yaml",
      defaultValue = "text",
      converter = Converter.class,
      description = "Output format (default: ${DEFAULT-VALUE}).")
  OutputFormat format;

  void print(PrintWriter out, Object result) {
    format.print(out, result);
  }

  static final class Converter implements picocli.CommandLine.ITypeConverter<OutputFormat> {
    @Override
    public OutputFormat convert(String value) {
      return OutputFormat.parse(value);
    }
  }
}
