import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { Template, TemplateSource } from '../api/types.ts';
import { ConfirmDialog, Loaded, Page, When } from '../components.tsx';
import { orgPath } from '../paths.ts';
import { useOrg } from '../shell.tsx';
import { templatesKey, useTemplates } from './queries.ts';

// Templates (issue 48): what sandboxes and runs start from instead of the bare base, built from
// a recipe (Debian packages and commands) or taken from a sandbox's files. Programs and the
// `orrery` tool make them with a key; here the org's templates are listed, newest first, and one
// nothing stands on may be deleted (the API refuses, naming what does, otherwise).

export function TemplatesPage() {
  const org = useOrg();
  const templates = useTemplates(org.id);
  const [deleting, setDeleting] = useState<Template>();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: (template: Template) =>
      dataOf(
        api.DELETE('/api/templates/{id}', { params: { path: { id: template.id } }, ...inOrgHeader(org.id) }),
      ),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: templatesKey(org.id) });
      setDeleting(undefined);
    },
  });
  return (
    <Page title="Templates">
      <p className="lead">
        A template is what a sandbox starts from instead of the bare base: Debian packages and commands built
        once (<code>orrery template create</code>, <code>client.templates.create</code>), or a sandbox's files
        (<code>sandbox.snapshot()</code>). Sandboxes and runs name one as <code>template</code>.
      </p>
      <Loaded query={templates} what="the templates" empty={<p>This org has no templates.</p>}>
        {(data) => (
          <TemplateTable
            templates={data}
            onDelete={(template) => {
              remove.reset();
              setDeleting(template);
            }}
          />
        )}
      </Loaded>
      {deleting && (
        <ConfirmDialog
          title={`Delete the template “${deleting.name}”?`}
          confirm="Delete the template"
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(undefined)}
          pending={remove.isPending}
          error={remove.error}
        >
          <p>
            Its files are removed from its host, and its name is free again. A template sandboxes or other
            templates stand on cannot be deleted until they are gone. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </Page>
  );
}

/** What a template was made from, in a few words. */
export function SourceText({ orgId, source }: { orgId: string; source: TemplateSource }) {
  if (source.kind === 'snapshot')
    return (
      <>
        snapshot of{' '}
        <Link to={orgPath(orgId, `/sandboxes/${encodeURIComponent(source.sandbox)}`)}>
          <code>{source.sandbox}</code>
        </Link>
      </>
    );
  return (
    <>
      recipe:{' '}
      {source.packages.length > 0 ? (
        source.packages.map((name) => (
          <code key={name} className="tag">
            {name}
          </code>
        ))
      ) : (
        <span className="muted">no packages</span>
      )}
      {source.run.length > 0 && (
        <span className="muted">
          {' '}
          and {source.run.length} command{source.run.length === 1 ? '' : 's'}
        </span>
      )}
    </>
  );
}

function TemplateTable({
  templates,
  onDelete,
}: {
  templates: Template[];
  onDelete: (template: Template) => void;
}) {
  const org = useOrg();
  return (
    <div className="table-wrap">
      <table aria-label="Templates">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Made from</th>
            <th scope="col">Host</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {templates.map((template) => (
            <tr key={template.id}>
              <th scope="row">
                {template.name}
                <div className="muted small">
                  <code>{template.id}</code>
                </div>
              </th>
              <td>
                <span className={`status status-${template.status}`}>{template.status}</span>
                {template.failure && <pre className="failure">{template.failure}</pre>}
              </td>
              <td>
                <SourceText orgId={org.id} source={template.source} />
              </td>
              <td>
                <code>{template.host}</code>
              </td>
              <td>
                <When iso={template.created_at} />
              </td>
              <td>
                {template.status !== 'building' && (
                  <button
                    type="button"
                    className="danger"
                    onClick={() => onDelete(template)}
                    aria-label={`Delete ${template.name}`}
                  >
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
