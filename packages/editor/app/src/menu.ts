// A small pop-up menu (the tab bars' overflow lists and the drawing's right-click menu): placed
// at a point and kept inside the window, closed by a choice, Esc or a click elsewhere.

export interface MenuItem {
  label: string;
  /** Absent: a separator when the label is empty, a disabled line otherwise. */
  run?: () => void;
  checked?: boolean;
}

let open: HTMLUListElement | null = null;

export function closeMenu(): void {
  open?.remove();
  open = null;
}

export function showMenu(items: MenuItem[], x: number, y: number, label = 'Menu'): HTMLUListElement {
  closeMenu();
  const ul = document.createElement('ul');
  ul.className = 'menu';
  ul.setAttribute('role', 'menu');
  ul.setAttribute('aria-label', label);
  for (const it of items) {
    const li = document.createElement('li');
    if (!it.label) {
      li.className = 'sep';
      li.setAttribute('role', 'separator');
    } else {
      li.textContent = `${it.checked ? '✓ ' : ''}${it.label}`;
      li.setAttribute('role', 'menuitem');
      li.tabIndex = -1;
      if (it.run) {
        const run = it.run;
        li.addEventListener('click', (ev) => {
          ev.stopPropagation();
          closeMenu();
          run();
        });
      } else li.setAttribute('aria-disabled', 'true');
    }
    ul.append(li);
  }
  document.body.append(ul);
  // kept inside the window
  const r = ul.getBoundingClientRect();
  ul.style.left = `${Math.max(0, Math.min(x, window.innerWidth - r.width - 2))}px`;
  ul.style.top = `${Math.max(0, Math.min(y, window.innerHeight - r.height - 2))}px`;
  open = ul;
  return ul;
}

window.addEventListener('mousedown', (ev) => {
  if (open && !open.contains(ev.target as Node)) closeMenu();
}, true);
window.addEventListener('keydown', (ev) => {
  if (open && ev.key === 'Escape') closeMenu();
}, true);
