package io.brook.tests.console;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through its chromedriver: the real browser the console's tests
 * use. Nothing is downloaded: the driver and browser are the packages {@code .ci/run} installs.
 */
final class Browser implements AutoCloseable {
  private static final Duration WAIT = Duration.ofSeconds(20);

  final ChromeDriver driver;
  final WebDriverWait wait;

  Browser(Path profile) throws IOException {
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(Path.of("/usr/bin/chromedriver").toFile())
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
        "--window-size=1280,900",
        "--user-data-dir=" + Files.createDirectories(profile));
    this.driver = new ChromeDriver(service, options);
    this.wait = new WebDriverWait(driver, WAIT);
  }

  /** Opens {@code url} and waits until the page named {@code page} has rendered. */
  void open(String url, String page) {
    driver.get(url);
    rendered(page);
  }

  void rendered(String page) {
    wait.until(ExpectedConditions.attributeToBe(By.tagName("body"), "data-page", page));
  }

  void waitText(By by, String text) {
    wait.until(ExpectedConditions.textToBe(by, text));
  }

  /** As {@link #waitText(By, String)}, for what takes the cluster longer (fencing a broker). */
  void waitText(By by, String text, Duration timeout) {
    new WebDriverWait(driver, timeout).until(ExpectedConditions.textToBe(by, text));
  }

  WebDriver driver() {
    return driver;
  }

  /**
   * Saves a PNG of the page to {@code docs/images/console-<name>.png}, only when the build asks
   * ({@code -Dbrook.docs.write=true}): the screenshots in docs/operations.md come from here.
   */
  void screenshot(String name) throws IOException {
    if (!Boolean.getBoolean("brook.docs.write")) {
      return;
    }
    String dir = System.getProperty("brook.docs.images");
    if (dir == null) {
      return;
    }
    byte[] png = driver.getScreenshotAs(OutputType.BYTES);
    Files.write(Files.createDirectories(Path.of(dir)).resolve("console-" + name + ".png"), png);
  }

  @Override
  public void close() {
    driver.quit();
  }
}
