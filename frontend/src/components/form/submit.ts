// The request of an admin form, with its busy flag and errors handled one way everywhere.

import { type HttpResult, isOk } from "../../lib/http";
import { type FormErrors, NO_ERRORS, toFormErrors } from "../../lib/formErrors";

/**
 * Run `request` with `setBusy(true)` around it. A 2xx answer clears the errors and goes to
 * `onOk`; any other answer becomes the form's errors; no answer at all (or `onOk` failing)
 * shows `offline`.
 */
export async function submitForm(
  request: () => Promise<HttpResult>,
  {
    setBusy,
    setErrors,
    offline,
    onOk,
  }: {
    setBusy(on: boolean): void;
    setErrors(errors: FormErrors): void;
    offline: string;
    onOk(res: HttpResult): void | Promise<void>;
  },
): Promise<void> {
  setBusy(true);
  try {
    const res = await request();
    if (isOk(res)) {
      setErrors(NO_ERRORS);
      await onOk(res);
    } else setErrors(toFormErrors(res.data, res.status));
  } catch {
    setErrors({ fields: {}, general: [offline] });
  } finally {
    setBusy(false);
  }
}
