/* global document, navigator */
// Progressive enhancement for the once-shown API key: a copy button. The page works without it
// (the value sits in a read-only field that can be selected by hand).
for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.getAttribute('data-copy'));
  if (!target || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(target.value);
      button.textContent = 'Copied';
    } catch {
      target.select();
      button.textContent = 'Press Ctrl+C to copy';
    }
  });
}
