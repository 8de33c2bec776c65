// A project's members: who they are, their role and their work; add, invite, change, remove.

import { useState } from "preact/hooks";
import { LoadErrorMessage } from "../../../components/PageMessage";
import { useResource } from "../../../hooks/useResource";
import type { Me, Member, Page } from "../../../types";
import { AdminLayout, Loading } from "../shared/AdminLayout";
import { listOf } from "../shared/list";
import { AddMemberForm } from "./AddMemberForm";
import { CreateAccount } from "./CreateAccount";
import { InvitePanel } from "./InvitePanel";
import { MembersTable } from "./MembersTable";

export function MembersPage({ me, projectId }: { me: Me; projectId: number }) {
  const members = useResource<Member[] | Page<Member>>(`/api/projects/${projectId}/members/`);
  const [prefill, setPrefill] = useState("");

  let table;
  if (members.error && !members.data) table = <LoadErrorMessage error={members.error} onRetry={() => void members.reload()} />;
  else if (!members.data) table = <Loading />;
  else table = <MembersTable projectId={projectId} members={listOf(members.data)} meId={me.id} onChanged={members.reload} />;

  return (
    <AdminLayout me={me} projectId={projectId} active="members" title="Members" testId="members-page" intro="Annotators annotate their assigned documents; reviewers and admins see everyone's work; admins set the project up.">
      {table}
      <AddMemberForm projectId={projectId} prefill={prefill} onAdded={() => members.reload()} />
      <InvitePanel projectId={projectId} />
      {me.is_superuser && <CreateAccount onCreated={(a) => setPrefill(a.email || a.username)} />}
    </AdminLayout>
  );
}
