import { ref } from 'vue';

/**
 * A page's buttons: each action clears the last error and confirmation, runs, shows what it
 * returned as the confirmation (if anything), reloads the page's data, and on failure shows the
 * API's error message instead. One copy for every page (shown by `<Status>`).
 */
export function useActions(reload: () => Promise<void> = async () => {}) {
  const error = ref<string | null>(null);
  const message = ref<string | null>(null);
  async function run(action: () => Promise<string | void>): Promise<void> {
    error.value = message.value = null;
    try {
      const done = await action();
      if (done) message.value = done;
      await reload();
    } catch (e) {
      error.value = (e as Error).message;
    }
  }
  return { error, message, run };
}
