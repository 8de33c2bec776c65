// Shared form pieces: labelled inputs, file picker, Markdown editor, confirmation dialog.
export { TextField, NumberField, TextArea, Select, type Option } from "./Inputs";
export { FileDrop } from "./FileDrop";
export { MarkdownEditor } from "./MarkdownEditor";
export { ConfirmDialog } from "./ConfirmDialog";
export { sendJson, sendMultipart, toFormData, isOk, type FormValue } from "./multipart";
export { formatSize } from "./size";
export { submitForm } from "./submit";
