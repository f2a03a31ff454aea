// Copying code: "Copy the whole program" puts a pitfall page's whole program (the .py file its Download button
// links, built by hooks/programs.py) on the clipboard, and every code block's own copy button copies its text with
// a trailing newline, so blocks pasted one after another stay separate lines.
document.addEventListener("click", async (event) => {
  const button = event.target.closest(".hb-program__copy");
  if (!button) return;
  const response = await fetch(button.dataset.program);
  if (!response.ok) return;
  await navigator.clipboard.writeText(await response.text());
  const label = button.textContent;
  button.textContent = button.dataset.copied;
  setTimeout(() => { button.textContent = label; }, 1500);
});

// The theme's copy button copies its target's text with trailing whitespace trimmed; give it the text to copy
// instead (capture: before the theme's handler reads it).
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-clipboard-target]");
  if (!button) return;
  const code = document.querySelector(button.dataset.clipboardTarget);
  if (!code) return;
  const copy = code.cloneNode(true);
  copy.querySelectorAll(".md-annotation, .md-annotation__index").forEach((el) => el.remove());
  button.dataset.clipboardText = copy.textContent.replace(/\s+$/, "") + "\n";
}, true);
