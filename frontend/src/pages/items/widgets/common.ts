// What every widget of an item form gets (see FieldWidget.tsx).

import type { ItemAnswer, ItemField, ItemState } from "../../../types";

export interface WidgetProps {
  field: ItemField;
  value: ItemAnswer | undefined;
  readOnly: boolean;
  doc: ItemState["document"];
  onChange(value: ItemAnswer | null, delayMs?: number): void;
}

/** The DOM id of a part of a field's widget. */
export const id = (field: ItemField, part: string) => `f-${field.name}-${part}`;
