import { useState } from 'react';

export interface CopyButtonProps {
  text: string;
  label?: string;
  /** What is copied, for the button's accessible name ("Copy secret key"). */
  what: string;
  /** An input or textarea holding the text, selected when the clipboard API is unavailable. */
  fallbackTarget?: () => HTMLInputElement | HTMLTextAreaElement | null;
  onCopied?: () => void;
}

/**
 * Copies with the async clipboard API (secure contexts: HTTPS or localhost). On plain HTTP it
 * selects the text and asks for Ctrl/Cmd+C instead of failing silently. The result is announced.
 */
export function CopyButton({ text, label = 'Copy', what, fallbackTarget, onCopied }: CopyButtonProps) {
  const [result, setResult] = useState('');
  const copy = async () => {
    try {
      if (!window.isSecureContext || !navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setResult('Copied to the clipboard.');
      onCopied?.();
    } catch {
      const target = fallbackTarget?.();
      if (target) {
        target.focus();
        target.select();
      }
      setResult('Copying is blocked here (not HTTPS?): the text is selected, press Ctrl+C or Cmd+C.');
    }
  };
  return (
    <span className="copy">
      <button type="button" onClick={copy} aria-label={`${label} ${what}`}>
        {label}
      </button>
      <span className="copy-result" role="status" aria-live="polite">
        {result}
      </span>
    </span>
  );
}
