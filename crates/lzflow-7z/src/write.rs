//! Writing: the writer state machine, the folder encoder and its workers,
//! the BCJ2 encoder,
//! the folder and coder records, the entries' names and fields, the file
//! table, the header writer and the tail `finish` writes, the output sink,
//! AES encoding and the options.

pub(crate) mod aes_encoder;
pub(crate) mod bcj2_encoder;
pub(crate) mod entry_fields;
pub(crate) mod entry_name;
pub(crate) mod file_table;
pub(crate) mod folder_encoder;
pub(crate) mod folder_record;
pub(crate) mod folder_workers;
pub(crate) mod header_tail;
pub(crate) mod header_writer;
pub(crate) mod output_spool;
pub(crate) mod poll_writer;
pub(crate) mod sink;
pub(crate) mod writer;
pub(crate) mod writer_options;
pub(crate) mod writer_thread;
pub(crate) mod x86_executable;
